/**
 * The keys a baker holds: secret keys indexed by their `tz…` key hash, and the sandbox's
 * bootstrap keys (tezt `constant.ml`; the activator is not a baker).
 *
 * @example
 * ```ts
 * const ring = keyRing(bootstrapSecretKeys());
 * ring.get("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx")?.secretKey; // bootstrap1
 * selectBootstrapKeys(["bootstrap2", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU"]); // bootstrap2's and bootstrap3's
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

/** The names of the sandbox's bootstrap accounts, in order (`bootstrap1` … `bootstrap5`). */
export const BOOTSTRAP_NAMES: readonly string[] = Object.freeze(BOOTSTRAP_SECRET_KEYS.map((_, i) => `bootstrap${i + 1}`));

/**
 * The bootstrap keys a baker bakes and endorses with, named by account (`bootstrap2`) or by
 * address (`tz1…`), in the order given, each once; all five when `names` is absent. RangeError
 * naming the first unknown key, or for an empty list.
 */
export function selectBootstrapKeys(names?: readonly string[]): SecretKey[] {
  const all = bootstrapSecretKeys();
  if (names === undefined) return all;
  if (!Array.isArray(names)) throw new TypeError("baker keys must be a list of bootstrap account names or tz1 addresses");
  if (names.length === 0) throw new RangeError("baker keys: at least one key is needed (bootstrap1 … bootstrap5 or their tz1 addresses)");
  const byName = new Map<string, number>();
  all.forEach((sk, i) => {
    byName.set(BOOTSTRAP_NAMES[i]!, i);
    byName.set(formatPublicKeyHash(publicKeyHash(publicKeyOf(sk))), i);
  });
  const chosen = new Set<number>();
  for (const name of names) {
    const i = typeof name === "string" ? byName.get(name) : undefined;
    if (i === undefined) {
      const shown = typeof name === "string" ? JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name) : String(name);
      throw new RangeError(`Unknown baker key ${shown}: expected ${BOOTSTRAP_NAMES.join(", ")} or one of their tz1 addresses`);
    }
    chosen.add(i);
  }
  return [...chosen].map((i) => all[i]!);
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
