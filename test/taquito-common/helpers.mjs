/**
 * Helpers of the Taquito scenarios that do not depend on the Taquito release: funding, balances,
 * fees, and a time bound that names the RPC a failure came from. Each suite's `support/sandbox.mjs`
 * re-exports them beside its own toolkits and keys.
 */
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
