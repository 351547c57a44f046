/**
 * Base58Check hash types: fixed bytes in binary, the `B…`/`o…`/`P…` string in JSON and as the
 * value, with the names and titles Octez gives them in schemas.
 * @module
 */
import { DecodeError } from "./codec.ts";
import { B58, b58encode, b58tryDecode, type Base58Kind } from "./base58.ts";
import { jsonPreview, jsonTypeError, makeCodec, valueTypeError, type Codec } from "./core.ts";
import { def } from "./conv.ts";
import { unistringSchema } from "./bytes.ts";

/** Payload bytes of a Base58Check string, or a DecodeError naming the kind. */
export function b58Json(kind: Base58Kind, text: unknown): Uint8Array {
  if (typeof text !== "string") throw jsonTypeError(`a ${kind.name} (Base58Check string)`, text as never);
  const b = b58tryDecode(kind, text);
  if (b === undefined) throw new DecodeError(`Invalid ${kind.name} ${jsonPreview(text, 200)}`);
  return b;
}

/**
 * The undecorated codec of a Base58Check kind: `kind.size` raw bytes, the Base58Check string as
 * JSON and value.
 */
export function base58Bytes(kind: Base58Kind): Codec<string> {
  return makeCodec<string>({
    size: { kind: "fixed", size: kind.size },
    desc: { t: "leaf", layout: { kind: "Bytes" } },
    toJson(v) {
      if (typeof v !== "string") throw valueTypeError(`a ${kind.name}`, v);
      return v;
    },
    fromJson(j) {
      b58Json(kind, j);
      return j as string;
    },
    write(out, v) {
      if (typeof v !== "string") throw valueTypeError(`a ${kind.name}`, v);
      const b = b58tryDecode(kind, v);
      if (b === undefined) throw new TypeError(`Invalid ${kind.name} ${jsonPreview(v, 200)}`);
      out.raw(b);
    },
    read: (r) => b58encode(kind, r.take(kind.size)),
    schema: unistringSchema,
  });
}

function hash(name: string, kind: Base58Kind, title: string): Codec<string> {
  return def(name, base58Bytes(kind), { title });
}

/** Block hash `B…` (32 bytes). */
export const blockHash = hash("block_hash", B58.blockHash, "A block identifier (Base58Check-encoded)");
/** Operation hash `o…` (32 bytes). */
export const operationHash = hash("Operation_hash", B58.operationHash, "A Tezos operation ID (Base58Check-encoded)");
/** Operation list hash `Lo…` (32 bytes). */
export const operationListHash = hash("Operation_list_hash", B58.operationListHash, "A list of operations (Base58Check-encoded)");
/** Operation list list hash `LLo…` (32 bytes), the header's `operations_hash`. */
export const operationListListHash = hash(
  "Operation_list_list_hash",
  B58.operationListListHash,
  "A list of list of operations (Base58Check-encoded)",
);
/** Protocol hash `P…` (32 bytes). */
export const protocolHash = hash("Protocol_hash", B58.protocolHash, "A Tezos protocol ID (Base58Check-encoded)");
/** Context hash `Co…` (32 bytes). */
export const contextHash = hash("Context_hash", B58.contextHash, "A hash of context (Base58Check-encoded)");
/** Block metadata hash `bm…` (32 bytes). */
export const blockMetadataHash = hash("Block_metadata_hash", B58.blockMetadataHash, "A Tezos block metadata ID (Base58Check-encoded)");
/** Operation metadata hash `r…` (32 bytes). */
export const operationMetadataHash = hash(
  "Operation_metadata_hash",
  B58.operationMetadataHash,
  "A Tezos operation metadata ID (Base58Check-encoded)",
);
/** Operation metadata list list hash `LLr…` (32 bytes). */
export const operationMetadataListListHash = hash(
  "Operation_metadata_list_list_hash",
  B58.operationMetadataListListHash,
  "A list of list of operation metadata (Base58Check-encoded)",
);
/** Chain id `Net…` (4 bytes). */
export const chainId = hash("Chain_id", B58.chainId, "Network identifier (Base58Check-encoded)");
/** Seed nonce hash `nce…` (32 bytes). */
export const nonceHash = hash("cycle_nonce", B58.nonceHash, "A nonce hash (Base58Check-encoded)");
/** Script expression hash `expr…` (32 bytes). */
export const scriptExprHash = hash("script_expr", B58.scriptExprHash, "A script expression ID (Base58Check-encoded)");
/** Originated contract hash `KT1…` (20 bytes). */
export const contractHash = hash("Contract_hash", B58.contractHash, "A contract ID (Base58Check-encoded)");
/** Ed25519 public key hash `tz1…` without a curve tag (20 bytes), as in activations. */
export const ed25519PublicKeyHash = hash(
  "Ed25519.Public_key_hash",
  B58.ed25519PublicKeyHash,
  "An Ed25519 public key hash (Base58Check-encoded)",
);
/** P2P peer id `id…` (16 bytes). */
export const cryptoboxPublicKeyHash = hash(
  "Crypto_box.Public_key_hash",
  B58.cryptoboxPublicKeyHash,
  "A Cryptobox public key ID (Base58Check-encoded)",
);
/** Blinded public key hash `btz1…` (20 bytes). */
export const blindedPublicKeyHash = hash("Blinded public key hash", B58.blindedPublicKeyHash, "A blinded public key hash (Base58Check-encoded)");
