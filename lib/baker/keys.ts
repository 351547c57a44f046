/**
 * The keys a baker holds: secret keys indexed by their `tz…` key hash, and the sandbox's
 * bootstrap keys (tezt `constant.ml`; the activator is not a baker).
 *
 * @example
 * ```ts
 * const ring = keyRing(bootstrapSecretKeys());
 * ring.get("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx")?.secretKey; // bootstrap1
 * ```
 * @module
 */
import { formatPublicKeyHash, parseSecretKey, publicKeyHash, publicKeyOf, type PublicKey, type SecretKey } from "../crypto/keys.ts";

/** The unencrypted secret keys of bootstrap1..5 of the Octez sandbox. */
export const BOOTSTRAP_SECRET_KEYS: readonly string[] = Object.freeze([
  "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh",
  "edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo",
  "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ",
  "edsk2uqQB9AY4FvioK2YMdfmyMrer5R8mGFyuaLLFfSRo8EoyNdht3",
  "edsk4QLrcijEffxV31gGdN2HU7UpyJjA8drFoNcmnB28n89YjPNRFm",
]);

/** bootstrap1..5's secret keys, parsed. */
export function bootstrapSecretKeys(): SecretKey[] {
  return BOOTSTRAP_SECRET_KEYS.map(parseSecretKey);
}

/** A key the baker holds. */
export interface HeldKey {
  /** `tz…`. */
  readonly pkh: string;
  readonly publicKey: PublicKey;
  readonly secretKey: SecretKey;
}

/** Held keys by `tz…`, in the order given (duplicates kept once). TypeError for a non-array. */
export function keyRing(keys: readonly SecretKey[]): ReadonlyMap<string, HeldKey> {
  if (!Array.isArray(keys)) throw new TypeError("keys must be an array of secret keys");
  const out = new Map<string, HeldKey>();
  keys.forEach((secretKey, i) => {
    let publicKey: PublicKey;
    try {
      publicKey = publicKeyOf(secretKey);
    } catch (e) {
      throw new TypeError(`keys[${i}] is not a secret key: ${e instanceof Error ? e.message : String(e)}`);
    }
    const pkh = formatPublicKeyHash(publicKeyHash(publicKey));
    if (!out.has(pkh)) out.set(pkh, { pkh, publicKey, secretKey });
  });
  return out;
}
