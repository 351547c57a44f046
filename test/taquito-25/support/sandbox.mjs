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

export { ALLOCATION_BURN, balanceOf, BOOTSTRAP, bounded, feesOf, fund, HANGZHOU, sandbox, stopSandbox } from "../../taquito-common/helpers.mjs";
