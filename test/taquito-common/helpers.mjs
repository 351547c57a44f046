/**
 * Helpers of the Taquito scenarios that do not depend on the Taquito release: the shared sandbox
 * node, bootstrap accounts, funding, balances, fees, and a time bound that names the RPC a failure came from. Each suite's `support/sandbox.mjs`
 * re-exports them beside its own toolkits and keys.
 */
import { startNode } from "./node.mjs";

export const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

/** Octez's sandbox bootstrap accounts (tezt `constant.ml`): 4,000,000 tez each, delegates. */
export const BOOTSTRAP = [
  { pkh: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", sk: "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh" },
  { pkh: "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", sk: "edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo" },
  { pkh: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", sk: "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ" },
  { pkh: "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", sk: "edsk2uqQB9AY4FvioK2YMdfmyMrer5R8mGFyuaLLFfSRo8EoyNdht3" },
  { pkh: "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv", sk: "edsk4QLrcijEffxV31gGdN2HU7UpyJjA8drFoNcmnB28n89YjPNRFm" },
];

/** Hangzhou sandbox: bytes paid for allocating an implicit account (origination_size × cost_per_byte). */
export const ALLOCATION_BURN = 257 * 250;

/** The confirmation poll: often enough for a test, bounded so a missing block fails the test. */
export const POLLING_INTERVAL_MS = 100;
export const CONFIRMATION_TIMEOUT_S = 60;

let node;

/** The shared node (started on the first call). */
export async function sandbox() {
  node ??= startNode();
  return node;
}

/** One call of a sandbox control (`/sandbox/…`) on the shared node; the JSON answer, or a thrown error naming it. */
export async function control(method, path, body) {
  const { url } = await sandbox();
  const init = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Stops the shared node if it was started. */
export async function stopSandbox() {
  if (node !== undefined) await (await node).stop();
}

/** Sends `mutez` from `from` (a toolkit) to `to` and waits for one confirmation. */
export async function fund(from, to, mutez) {
  const op = await from.contract.transfer({ to, amount: mutez, mutez: true });
  await op.confirmation(1);
  return op;
}

/** The mutez balance of `address` as a bigint. */
export async function balanceOf(tezos, address) {
  return BigInt((await tezos.tz.getBalance(address)).toFixed());
}

/** Sum of the fees of an operation's contents (from the preapply results Taquito keeps). */
export function feesOf(op) {
  return op.results.reduce((sum, content) => sum + BigInt(content.fee ?? 0), 0n);
}

/**
 * Runs `body` but fails after `ms` milliseconds, naming `what`. An HTTP error from Taquito gets
 * the request's URL and the node's answer in its message, so a failure says which RPC was wrong.
 */
export function bounded(what, body, ms = 120_000) {
  return async (context) => {
    let timer;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no outcome within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([body(context), limit]);
    } catch (error) {
      if (error && typeof error.url === "string") {
        const body = String(error.body ?? "").trim().slice(0, 2000);
        const message = String(error.message).trim();
        throw new Error(`${message}${message.includes(body) ? "" : ` ${body}`} (from ${error.url})`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}
