/**
 * Keys, key hashes, signatures and contract ids, in binary as Octez lays them out (curve tag then
 * bytes; 64 raw signature bytes; 22-byte contract ids) and in Base58Check as JSON and values.
 * @module
 */
import { DecodeError, type Json } from "./codec.ts";
import { B58, b58encode, b58tryDecode, type Base58Kind } from "./base58.ts";
import { jsonPreview, jsonTypeError, makeCodec, setDefMeta, valueTypeError, type Codec, type SchemaContext } from "./core.ts";
import { def, padded } from "./conv.ts";
import { unistringSchema } from "./bytes.ts";
import { base58Bytes } from "./hashes.ts";
import { tagged, union } from "./union.ts";

const PKH_KINDS: readonly Base58Kind[] = [B58.ed25519PublicKeyHash, B58.secp256k1PublicKeyHash, B58.p256PublicKeyHash];
const PK_KINDS: readonly Base58Kind[] = [B58.ed25519PublicKey, B58.secp256k1PublicKey, B58.p256PublicKey];
const CURVES = ["Ed25519", "Secp256k1", "P256"] as const;

/** Curve tag (0 ed25519, 1 secp256k1, 2 p256) and payload of a `tz1`/`tz2`/`tz3` string, or undefined. */
export function parsePublicKeyHash(text: string): [tag: number, payload: Uint8Array] | undefined {
  const i = text.startsWith("tz1") ? 0 : text.startsWith("tz2") ? 1 : text.startsWith("tz3") ? 2 : -1;
  if (i < 0) return undefined;
  const b = b58tryDecode(PKH_KINDS[i]!, text);
  return b === undefined ? undefined : [i, b];
}

/** Curve tag and payload of an `edpk`/`sppk`/`p2pk` string, or undefined. */
export function parsePublicKey(text: string): [tag: number, payload: Uint8Array] | undefined {
  const i = text.startsWith("edpk") ? 0 : text.startsWith("sppk") ? 1 : text.startsWith("p2pk") ? 2 : -1;
  if (i < 0) return undefined;
  const b = b58tryDecode(PK_KINDS[i]!, text);
  return b === undefined ? undefined : [i, b];
}

function stringJson(what: string, check: (s: string) => boolean): { toJson(v: string): Json; fromJson(j: Json): string } {
  return {
    toJson(v) {
      if (typeof v !== "string") throw valueTypeError(what, v);
      return v;
    },
    fromJson(j) {
      if (typeof j !== "string") throw jsonTypeError(what, j);
      if (!check(j)) throw new DecodeError(`Invalid ${what} ${jsonPreview(j, 200)}`);
      return j;
    },
  };
}

function refSchema(name: string, title: string): (ctx: SchemaContext) => { $ref: string } {
  return (ctx) => {
    if (!ctx.defs.has(name)) {
      const inner = unistringSchema(ctx);
      ctx.defs.set(name, { title, ...inner });
    }
    return { $ref: `#/definitions/${name}` };
  };
}

/** Description-only union of curve-tagged byte strings (for the binary schema). */
function curveUnion(kinds: readonly Base58Kind[], suffix: string): Codec<string> {
  return union<string>(
    kinds.map((k, i) =>
      tagged<string, string>(i, CURVES[i]!, def(`${CURVES[i]}.${suffix}`, base58Bytes(k)), (v) => (b58tryDecode(k, v) !== undefined ? v : undefined), (v) => v)
    ),
  );
}

function namedCodec<T>(name: string, title: string, binaryName: string, binaryDesc: Codec<unknown>, spec: {
  size: Codec<T>["size"];
  toJson(v: T): Json;
  fromJson(j: Json): T;
  write: Codec<T>["write"];
  read: Codec<T>["read"];
}): Codec<T> {
  const binary = def(binaryName, binaryDesc);
  const c = makeCodec<T>({
    title: name,
    size: spec.size,
    desc: { t: "def", name, codec: binary },
    toJson: spec.toJson,
    fromJson: spec.fromJson,
    write: spec.write,
    read: spec.read,
    schema: refSchema(name, title),
  });
  setDefMeta(c as Codec<unknown>, { title });
  return c;
}

const pkhJson = stringJson("public key hash (tz1, tz2 or tz3)", (s) => parsePublicKeyHash(s) !== undefined);

/** Public key hash `tz1`/`tz2`/`tz3`: curve tag byte then 20 bytes (21 in all). */
export const publicKeyHash: Codec<string> = namedCodec<string>(
  "Signature.Public_key_hash",
  "A Ed25519, Secp256k1, or P256 public key hash (Base58Check-encoded)",
  "public_key_hash",
  curveUnion(PKH_KINDS, "Public_key_hash"),
  {
    size: { kind: "fixed", size: 21 },
    ...pkhJson,
    write(out, v) {
      const p = typeof v === "string" ? parsePublicKeyHash(v) : undefined;
      if (p === undefined) throw valueTypeError("a public key hash (tz1, tz2 or tz3)", v);
      out.u8(p[0]);
      out.raw(p[1]);
    },
    read(r) {
      const tag = r.u8();
      const k = PKH_KINDS[tag];
      if (k === undefined) throw new DecodeError(`Unknown public key hash tag ${tag}`);
      return b58encode(k, r.take(20));
    },
  },
);

const pkJson = stringJson("public key (edpk, sppk or p2pk)", (s) => parsePublicKey(s) !== undefined);

/** Public key `edpk`/`sppk`/`p2pk`: curve tag byte then 32 or 33 bytes. */
export const publicKey: Codec<string> = namedCodec<string>(
  "Signature.Public_key",
  "A Ed25519, Secp256k1, or P256 public key (Base58Check-encoded)",
  "public_key",
  curveUnion(PK_KINDS, "Public_key"),
  {
    size: { kind: "dynamic" },
    ...pkJson,
    write(out, v) {
      const p = typeof v === "string" ? parsePublicKey(v) : undefined;
      if (p === undefined) throw valueTypeError("a public key (edpk, sppk or p2pk)", v);
      out.u8(p[0]);
      out.raw(p[1]);
    },
    read(r) {
      const tag = r.u8();
      const k = PK_KINDS[tag];
      if (k === undefined) throw new DecodeError(`Unknown public key tag ${tag}`);
      return b58encode(k, r.take(k.size));
    },
  },
);

const SIG_KINDS: readonly Base58Kind[] = [B58.genericSignature, B58.ed25519Signature, B58.secp256k1Signature, B58.p256Signature];

/** The 64 bytes of a signature in any of its Base58Check forms (`sig`, `edsig`, `spsig1`, `p2sig`), or undefined. */
export function signatureBytes(text: string): Uint8Array | undefined {
  const k = text.startsWith("edsig") ? B58.ed25519Signature
    : text.startsWith("spsig1") ? B58.secp256k1Signature
    : text.startsWith("p2sig") ? B58.p256Signature
    : text.startsWith("sig") ? B58.genericSignature
    : undefined;
  if (k !== undefined) {
    const b = b58tryDecode(k, text);
    if (b !== undefined) return b;
  }
  for (const kk of SIG_KINDS) {
    const b = b58tryDecode(kk, text);
    if (b !== undefined) return b;
  }
  return undefined;
}

/** Generic `sig…` form of 64 signature bytes. */
export function genericSignature(bytes: Uint8Array): string {
  return b58encode(B58.genericSignature, bytes);
}

const sigJson = stringJson("signature (sig, edsig, spsig1 or p2sig)", (s) => signatureBytes(s) !== undefined);

/**
 * Signature: 64 raw bytes. Values and JSON are Base58Check strings; binary decoding gives the
 * generic `sig…` form (the bytes carry no curve), JSON input accepts every form.
 */
export const signature: Codec<string> = (() => {
  const c = makeCodec<string>({
    title: "Signature",
    size: { kind: "fixed", size: 64 },
    desc: { t: "def", name: "Signature", codec: base58Bytes(B58.genericSignature) },
    ...sigJson,
    write(out, v) {
      const b = typeof v === "string" ? signatureBytes(v) : undefined;
      if (b === undefined) throw valueTypeError("a signature (sig, edsig, spsig1 or p2sig)", v);
      out.raw(b);
    },
    read: (r) => genericSignature(r.take(64)),
    schema: refSchema("Signature", "A Ed25519, Secp256k1 or P256 signature (Base58Check-encoded)"),
  });
  setDefMeta(c as Codec<unknown>, { title: "A Ed25519, Secp256k1 or P256 signature (Base58Check-encoded)" });
  return c;
})();

/** The all-zero signature, which stands for "no signature" in operations. */
export const ZERO_SIGNATURE: string = genericSignature(new Uint8Array(64));

/** Contract id bytes (22) of a `tz1`/`tz2`/`tz3`/`KT1` string, or undefined. */
export function contractIdBytes(text: string): Uint8Array | undefined {
  if (text.startsWith("KT1")) {
    const b = b58tryDecode(B58.contractHash, text);
    if (b === undefined) return undefined;
    const out = new Uint8Array(22);
    out[0] = 1;
    out.set(b, 1);
    return out;
  }
  const p = parsePublicKeyHash(text);
  if (p === undefined) return undefined;
  const out = new Uint8Array(22);
  out[1] = p[0];
  out.set(p[1], 2);
  return out;
}

/** Reads a 22-byte contract id. */
function readContractId(r: { u8(): number; take(n: number): Uint8Array }): string {
  const tag = r.u8();
  if (tag === 0) {
    const curve = r.u8();
    const k = PKH_KINDS[curve];
    if (k === undefined) throw new DecodeError(`Unknown public key hash tag ${curve}`);
    return b58encode(k, r.take(20));
  }
  if (tag === 1) {
    const s = b58encode(B58.contractHash, r.take(20));
    if (r.u8() !== 0) throw new DecodeError("Non-zero padding byte in an originated contract id");
    return s;
  }
  throw new DecodeError(`Unknown contract id tag ${tag}`);
}

const contractJson = stringJson("contract id (tz1, tz2, tz3 or KT1)", (s) => contractIdBytes(s) !== undefined);

/**
 * Contract id codec under the protocol's definition name (e.g. `011-PtHangz2.contract_id`):
 * 0x00 ‖ public key hash (21) for implicit accounts, 0x01 ‖ contract hash (20) ‖ 0x00 for KT1.
 */
export function contractIdCodec(name: string): Codec<string> {
  const description = union<string>([
    tagged<string, string>(0, "Implicit", publicKeyHash, (v) => (v.startsWith("KT1") ? undefined : v), (v) => v),
    tagged<string, string>(1, "Originated", padded(base58Def(), 1), (v) => (v.startsWith("KT1") ? v : undefined), (v) => v),
  ]);
  const c = makeCodec<string>({
    title: name,
    size: { kind: "fixed", size: 22 },
    desc: { t: "def", name, codec: description },
    ...contractJson,
    write(out, v) {
      const b = typeof v === "string" ? contractIdBytes(v) : undefined;
      if (b === undefined) throw valueTypeError("a contract id (tz1, tz2, tz3 or KT1)", v);
      out.raw(b);
    },
    read: readContractId,
    schema(ctx) {
      if (!ctx.defs.has(name)) {
        const inner = unistringSchema(ctx);
        ctx.defs.set(name, {
          title: "A contract handle",
          description:
            "A contract notation as given to an RPC or inside scripts. Can be a base58 implicit contract hash or a base58 originated contract hash.",
          ...inner,
        });
      }
      return { $ref: `#/definitions/${name}` };
    },
  });
  return c;
}

function base58Def(): Codec<string> {
  return def("Contract_hash", base58Bytes(B58.contractHash));
}
