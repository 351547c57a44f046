/**
 * Ed25519 (tz1) with Octez's acceptance rule on every runtime.
 *
 * The rule. Octez v12 verifies Ed25519 with HACL* (`src/lib_crypto/ed25519.ml` →
 * `src/lib_hacl_glue/unix/hacl.ml` → hacl-star 0.4.3, whose verified implementation follows
 * `specs/Spec.Ed25519.fst`). A signature (R ‖ S) on message M under public key A is accepted iff
 * 1. A and R are canonical encodings of curve points: the y coordinate is below p = 2^255 − 19,
 *    and the sign bit is clear when x = 0 (that is, for y = ±1); a y with no x is rejected;
 * 2. S < L (the group order), as a little-endian integer;
 * 3. [S]B = R + [h]A, with h = SHA-512(R ‖ A ‖ M) mod L over the bytes as given: the
 *    cofactorless equation, compared as points.
 * Small-order and mixed-order A and R are not refused by themselves. Octez accepts any 32 bytes
 * as an `edpk` (no point check at parse time); such a key simply verifies nothing.
 *
 * How it is enforced. Conditions 1 (encodings) and 2 are checked here, on bytes, before anything
 * else. The equation is then left to WebCrypto (`Ed25519`, in Node ≥ 20, Bun, Deno and current
 * browsers), whose libraries all use the cofactorless equation on canonical inputs, except when A
 * or R is one of the 8 small-order points, where libraries disagree: those, and runtimes without
 * WebCrypto Ed25519, go through our own check of the equation on `@noble/curves` points. Measured
 * without our checks, Node and Bun accept case 11 of the "Taming the many EdDSAs" set (a
 * non-canonical A) and Deno refuses it; with them, all three give the same answers
 * (`test/crypto/vectors/ed25519-edge-cases.json`).
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex, bytesToNumberLE, concatBytes } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";

/** Order L of the Ed25519 prime-order subgroup. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The canonical encodings of the 8 points of small order (the torsion subgroup). */
const SMALL_ORDER = new Set([
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0000000000000000000000000000000000000000000000000000000000000080",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
]);

/** Which implementation checks the equation: `auto` picks WebCrypto when the runtime has it. */
export type Ed25519Backend = "auto" | "webcrypto" | "noble";

function bytes(name: string, value: unknown, size: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== size) throw new RangeError(`${name} must be ${size} bytes, got ${value.length}`);
  return value;
}

/**
 * Whether 32 bytes are a canonical point encoding in the sense of rule 1 (y < p, and no sign bit
 * with x = 0). It does not check that y has a matching x.
 */
export function isCanonicalEd25519Encoding(point: Uint8Array): boolean {
  bytes("point", point, 32);
  const top = point[31]! & 0x7f;
  let middleAllFF = true;
  let middleAllZero = true;
  for (let i = 1; i < 31; i++) {
    if (point[i] !== 0xff) middleAllFF = false;
    if (point[i] !== 0) middleAllZero = false;
  }
  // y ≥ p = 2^255 − 19 only when y's bytes are ff…ff7f with a first byte ≥ 0xed.
  if (top === 0x7f && middleAllFF && point[0]! >= 0xed) return false;
  const signBit = (point[31]! & 0x80) !== 0;
  if (signBit) {
    // x = 0 exactly for y = 1 and y = p − 1 = 0xec ff…ff 7f.
    if (top === 0 && middleAllZero && point[0] === 1) return false;
    if (top === 0x7f && middleAllFF && point[0] === 0xec) return false;
  }
  return true;
}

function scalarBelowL(s: Uint8Array): boolean {
  if (s[31]! < 0x10) return true; // below 2^252 < L
  return bytesToNumberLE(s) < L;
}

// First bytes of the small-order encodings: only those need the full comparison.
const SMALL_ORDER_FIRST = new Set([...SMALL_ORDER].map((h) => parseInt(h.slice(0, 2), 16)));

function isSmallOrder(point: Uint8Array): boolean {
  return SMALL_ORDER_FIRST.has(point[0]!) && SMALL_ORDER.has(bytesToHex(point));
}

/** Rule 3 on noble points (rules 1 and 2 already hold): [S]B = R + [h]A, cofactorless. */
function equationHolds(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const Point = ed25519.Point;
  const r = signature.subarray(0, 32);
  let A, R;
  try {
    A = Point.fromBytes(publicKey, false);
    R = Point.fromBytes(r, false);
  } catch {
    return false; // y with no matching x
  }
  const s = bytesToNumberLE(signature.subarray(32, 64));
  const h = bytesToNumberLE(sha512(concatBytes(r, publicKey, message))) % L;
  return Point.BASE.multiplyUnsafe(s).equals(R.add(A.multiplyUnsafe(h)));
}

// RFC 8032 §7.1 test 1: the probe that tells whether WebCrypto Ed25519 works here, and works right.
const PROBE_KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const PROBE_SIG =
  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

function hex(text: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

let webCryptoSupport: Promise<boolean> | undefined;

/** Whether this runtime's WebCrypto verifies Ed25519 (probed once with an RFC 8032 vector). */
export function hasWebCryptoEd25519(): Promise<boolean> {
  webCryptoSupport ??= (async () => {
    try {
      const subtle = globalThis.crypto?.subtle;
      if (subtle === undefined) return false;
      const key = await subtle.importKey("raw", hex(PROBE_KEY), { name: "Ed25519" }, false, ["verify"]);
      return (await subtle.verify({ name: "Ed25519" }, key, hex(PROBE_SIG), new Uint8Array(0))) === true;
    } catch {
      return false;
    }
  })();
  return webCryptoSupport;
}

// Imported verification keys, most recently added last; delegates sign again and again.
const KEY_CACHE_SIZE = 2048;
const keyCache = new Map<string, Promise<CryptoKey>>();

function importVerifyKey(publicKey: Uint8Array): Promise<CryptoKey> {
  const id = bytesToHex(publicKey);
  let key = keyCache.get(id);
  if (key === undefined) {
    key = crypto.subtle.importKey("raw", publicKey.slice(), { name: "Ed25519" }, false, ["verify"]);
    key.catch(() => keyCache.delete(id));
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, key);
  }
  return key;
}

/**
 * Verifies an Ed25519 signature synchronously with noble, under the same rule as
 * {@link ed25519Verify} (for callers that cannot await, e.g. Michelson's `CHECK_SIGNATURE`).
 * Returns `false` for any signature the rule refuses; throws only on arguments of the wrong type or length.
 */
export function ed25519VerifySync(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  bytes("publicKey", publicKey, 32);
  bytes("signature", signature, 64);
  if (!(message instanceof Uint8Array)) throw new TypeError("message must be a Uint8Array");
  if (!isCanonicalEd25519Encoding(publicKey) || !isCanonicalEd25519Encoding(signature.subarray(0, 32))) return false;
  if (!scalarBelowL(signature.subarray(32, 64))) return false;
  return equationHolds(publicKey, message, signature);
}

/**
 * Verifies an Ed25519 signature of `message` (the raw message, for Tezos the 32-byte digest of
 * watermark ‖ bytes) under Octez's rule (see the module doc). Resolves to `false` for any
 * signature the rule refuses; rejects only on arguments of the wrong type or length.
 * @param backend `auto` (default), or `webcrypto` / `noble` to force one (tests, benches).
 */
export async function ed25519Verify(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  backend: Ed25519Backend = "auto",
): Promise<boolean> {
  bytes("publicKey", publicKey, 32);
  bytes("signature", signature, 64);
  if (!(message instanceof Uint8Array)) throw new TypeError("message must be a Uint8Array");
  const r = signature.subarray(0, 32);
  if (!isCanonicalEd25519Encoding(publicKey) || !isCanonicalEd25519Encoding(r)) return false;
  if (!scalarBelowL(signature.subarray(32, 64))) return false;
  const smallOrder = isSmallOrder(publicKey) || isSmallOrder(r);
  let useWebCrypto: boolean;
  if (backend === "noble" || smallOrder) useWebCrypto = false;
  else if (backend === "webcrypto") {
    if (!(await hasWebCryptoEd25519())) throw new Error("WebCrypto Ed25519 is not available on this runtime");
    useWebCrypto = true;
  } else if (backend === "auto") useWebCrypto = await hasWebCryptoEd25519();
  else throw new TypeError(`Unknown Ed25519 backend ${JSON.stringify(backend)}`);
  if (!useWebCrypto) return equationHolds(publicKey, message, signature);
  try {
    const key = await importVerifyKey(publicKey);
    return await crypto.subtle.verify({ name: "Ed25519" }, key, signature.slice(), message.slice());
  } catch {
    return false; // a y with no matching x: some runtimes refuse the key at import
  }
}

/** Ed25519 signature (RFC 8032, deterministic) of `message` with the 32-byte `seed`. */
export function ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  bytes("seed", seed, 32);
  if (!(message instanceof Uint8Array)) throw new TypeError("message must be a Uint8Array");
  return ed25519.sign(message, seed);
}

/** PKCS #8 envelope of an Ed25519 seed (RFC 8410), for WebCrypto's `importKey`. */
const PKCS8_PREFIX = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20);
const signingKeys = new Map<string, Promise<CryptoKey>>();

function signingKey(seed: Uint8Array): Promise<CryptoKey> {
  const id = bytesToHex(seed);
  let key = signingKeys.get(id);
  if (key === undefined) {
    const pkcs8 = new Uint8Array(48);
    pkcs8.set(PKCS8_PREFIX);
    pkcs8.set(seed, 16);
    key = crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
    if (signingKeys.size >= 256) signingKeys.delete(signingKeys.keys().next().value!);
    signingKeys.set(id, key);
  }
  return key;
}

/**
 * Ed25519 signature of `message` with the 32-byte `seed`, through WebCrypto where the runtime
 * has Ed25519 (several times faster than the pure-JS path), else {@link ed25519Sign}. Ed25519 is
 * deterministic: both give the same bytes.
 */
export async function ed25519SignAsync(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  bytes("seed", seed, 32);
  if (!(message instanceof Uint8Array)) throw new TypeError("message must be a Uint8Array");
  if (!(await hasWebCryptoEd25519())) return ed25519.sign(message, seed);
  return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, await signingKey(seed), message.slice()));
}

/** The 32-byte Ed25519 public key of a 32-byte `seed`. */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(bytes("seed", seed, 32));
}
