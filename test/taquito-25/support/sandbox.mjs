/**
 * The sandbox every test file of this suite shares: one node (started on first use, stopped by
 * the runner), Taquito 25.0.0 toolkits signing with the bootstrap keys or with fixed test keys,
 * and helpers to fund fresh accounts.
 * @module
 */
import { createHash } from "node:crypto";
import { PollingSubscribeProvider, TezosToolkit } from "@taquito/taquito";
import { InMemorySigner } from "@taquito/signer";
import { b58Encode, PrefixV2 } from "@taquito/utils";
import { startNode } from "../../taquito-common/node.mjs";

/** Hangzhou's protocol hash, as the node reports it in `head/protocols`. */
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
const POLLING_INTERVAL_MS = 100;
const CONFIRMATION_TIMEOUT_S = 60;

let node;

/** The shared node (started on the first call). */
export async function sandbox() {
  node ??= startNode();
  return node;
}

/** Stops the shared node if it was started. */
export async function stopSandbox() {
  if (node !== undefined) await (await node).stop();
}

/** A toolkit on the shared node signing with `secretKey` (edsk/spsk/p2sk), polling every 100 ms. */
export async function toolkit(secretKey) {
  const { url } = await sandbox();
  const tezos = new TezosToolkit(url);
  tezos.setProvider({
    signer: await InMemorySigner.fromSecretKey(secretKey),
    config: { confirmationPollingTimeoutSecond: CONFIRMATION_TIMEOUT_S },
  });
  tezos.setStreamProvider(tezos.getFactory(PollingSubscribeProvider)({ pollingIntervalMilliseconds: POLLING_INTERVAL_MS }));
  return tezos;
}

const SECRET_PREFIX = { ed25519: PrefixV2.Ed25519Seed, secp256k1: PrefixV2.Secp256k1SecretKey, p256: PrefixV2.P256SecretKey };

/**
 * A fixed test key: the 32-byte secret is SHA-256 of `taquito-25/<curve>/<label>`, so each run
 * uses the same accounts (fresh on every new sandbox). Returns `{ sk, pkh }`.
 */
export async function testKey(curve, label) {
  const seed = createHash("sha256").update(`taquito-25/${curve}/${label}`).digest();
  const sk = b58Encode(new Uint8Array(seed), SECRET_PREFIX[curve]);
  return { sk, pkh: await new InMemorySigner(sk).publicKeyHash() };
}

export { balanceOf, bounded, feesOf, fund } from "../../taquito-common/helpers.mjs";
