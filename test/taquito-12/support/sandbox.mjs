/**
 * The sandbox every test file of this suite shares: one node (started on first use, stopped by
 * the runner), Taquito 12.0.3 toolkits signing with the bootstrap keys or with fixed test keys,
 * and helpers to fund fresh accounts.
 * @module
 */
import { createHash } from "node:crypto";
import { PollingSubscribeProvider, TezosToolkit } from "@taquito/taquito";
import { InMemorySigner } from "@taquito/signer";
import { b58cencode, prefix, Prefix } from "@taquito/utils";
import { CONFIRMATION_TIMEOUT_S, POLLING_INTERVAL_MS, sandbox } from "../../taquito-common/helpers.mjs";

/** Hangzhou's protocol hash, as the node reports it in `head/protocols`. */
/** A toolkit on the shared node signing with `secretKey` (edsk/spsk/p2sk), polling every 100 ms. */
export async function toolkit(secretKey) {
  const { url } = await sandbox();
  return toolkitAt(url, secretKey);
}

/** A toolkit on the node at `url` (another than the shared one), as {@link toolkit}. */
export async function toolkitAt(url, secretKey) {
  const tezos = new TezosToolkit(url);
  tezos.setProvider({
    signer: await InMemorySigner.fromSecretKey(secretKey),
    config: { confirmationPollingTimeoutSecond: CONFIRMATION_TIMEOUT_S },
  });
  tezos.setStreamProvider(tezos.getFactory(PollingSubscribeProvider)({ pollingIntervalMilliseconds: POLLING_INTERVAL_MS }));
  return tezos;
}

const SECRET_PREFIX = { ed25519: prefix[Prefix.EDSK2], secp256k1: prefix[Prefix.SPSK], p256: prefix[Prefix.P2SK] };

/**
 * A fixed test key: the 32-byte secret is SHA-256 of `taquito-12/<curve>/<label>`, so each run
 * uses the same accounts (fresh on every new sandbox). Returns `{ sk, pkh }`.
 */
export async function testKey(curve, label) {
  const seed = createHash("sha256").update(`taquito-12/${curve}/${label}`).digest();
  const sk = b58cencode(new Uint8Array(seed), SECRET_PREFIX[curve]);
  return { sk, pkh: await new InMemorySigner(sk).publicKeyHash() };
}

export { ALLOCATION_BURN, balanceOf, BOOTSTRAP, bounded, feesOf, fund, HANGZHOU, sandbox, stopSandbox } from "../../taquito-common/helpers.mjs";
