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
import { formatPublicKeyHash, parsePublicKey, parseSecretKey, publicKeyHash, publicKeyOf, type PublicKey, type SecretKey } from "../crypto/keys.ts";
import { BOOTSTRAP_ACCOUNTS, findBootstrapAccount, unknownBakerKeyMessage } from "./bootstrap-accounts.ts";

/** The unencrypted secret keys of bootstrap1..5 of the Octez sandbox. */
export const BOOTSTRAP_SECRET_KEYS: readonly string[] = Object.freeze(BOOTSTRAP_ACCOUNTS.map((a) => a.secretKey));

/** bootstrap1..5's secret keys, parsed. */
export function bootstrapSecretKeys(): SecretKey[] {
  return BOOTSTRAP_SECRET_KEYS.map(parseSecretKey);
}

/** The names of the sandbox's bootstrap accounts, in order (`bootstrap1` … `bootstrap5`). */
export const BOOTSTRAP_NAMES: readonly string[] = Object.freeze(BOOTSTRAP_ACCOUNTS.map((a) => a.name));

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
  const chosen = new Set<number>();
  for (const name of names) {
    const account = typeof name === "string" ? findBootstrapAccount(name) : undefined;
    if (account === undefined) throw new RangeError(unknownBakerKeyMessage(name));
    chosen.add(BOOTSTRAP_ACCOUNTS.indexOf(account));
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
      publicKey = bootstrapPublicKey(secretKey) ?? publicKeyOf(secretKey);
    } catch (e) {
      throw new TypeError(`keys[${i}] is not a secret key: ${e instanceof Error ? e.message : String(e)}`);
    }
    const pkh = formatPublicKeyHash(publicKeyHash(publicKey));
    if (!out.has(pkh)) out.set(pkh, { pkh, publicKey, secretKey });
  });
  return out;
}

/** bootstrap1..5's secret and public keys, parsed once (see {@link bootstrapPublicKey}). */
let bootstrapPairs: { readonly secret: Uint8Array; readonly publicKey: PublicKey }[] | undefined;

/**
 * The public key of a bootstrap account's secret key, from the account's published key (no
 * curve arithmetic: every node of a process holds these five, and deriving them is some 0.5 ms
 * each); `undefined` for any other key.
 */
function bootstrapPublicKey(secretKey: SecretKey): PublicKey | undefined {
  if (secretKey === null || typeof secretKey !== "object" || secretKey.curve !== "ed25519" || !(secretKey.bytes instanceof Uint8Array)) return undefined;
  bootstrapPairs ??= BOOTSTRAP_ACCOUNTS.map((a) => ({ secret: parseSecretKey(a.secretKey).bytes, publicKey: parsePublicKey(a.publicKey) }));
  const bytes = secretKey.bytes;
  const pair = bootstrapPairs.find((p) => p.secret.length === bytes.length && p.secret.every((b, i) => b === bytes[i]));
  return pair === undefined ? undefined : Object.freeze({ curve: pair.publicKey.curve, bytes: pair.publicKey.bytes.slice() });
}
