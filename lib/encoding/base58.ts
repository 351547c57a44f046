/**
 * Base58Check with the Tezos prefixes (Octez `src/lib_crypto/base58.ml`): a string is
 * base58(prefix ‖ payload ‖ first 4 bytes of SHA-256²(prefix ‖ payload)).
 * @module
 */
import bs58check from "bs58check";
import { byteString, Lru } from "./lru.ts";

/**
 * The same addresses, keys and hashes are written and read again and again (a transfer's source
 * by the mempool, the block and every RPC): the recent conversions are kept, both ways (an
 * encoding is also kept as a decoding). Only texts that decode are kept. Keep the returned bytes
 * of a decoding unchanged: `b58tryDecode` hands out copies.
 */
const encoded = new Lru<string, string>(16_384);
const decoded = new Lru<string, Uint8Array>(16_384);

/** A Base58Check kind: its prefix bytes and the length of its payload. */
export interface Base58Kind {
  readonly name: string;
  readonly prefix: Uint8Array;
  readonly size: number;
}

function kind(name: string, prefix: number[], size: number): Base58Kind {
  return { name, prefix: Uint8Array.from(prefix), size };
}

/** Every Base58Check kind a Tezos node meets, with Octez's prefixes. */
export const B58 = {
  blockHash: kind("block_hash", [1, 52], 32),
  operationHash: kind("operation_hash", [5, 116], 32),
  operationListHash: kind("operation_list_hash", [133, 233], 32),
  operationListListHash: kind("operation_list_list_hash", [29, 159, 109], 32),
  protocolHash: kind("protocol_hash", [2, 170], 32),
  contextHash: kind("context_hash", [79, 199], 32),
  blockMetadataHash: kind("block_metadata_hash", [234, 249], 32),
  operationMetadataHash: kind("operation_metadata_hash", [5, 183], 32),
  operationMetadataListHash: kind("operation_metadata_list_hash", [134, 39], 32),
  operationMetadataListListHash: kind("operation_metadata_list_list_hash", [29, 159, 182], 32),
  chainId: kind("chain_id", [87, 82, 0], 4),
  ed25519PublicKeyHash: kind("ed25519_public_key_hash", [6, 161, 159], 20),
  secp256k1PublicKeyHash: kind("secp256k1_public_key_hash", [6, 161, 161], 20),
  p256PublicKeyHash: kind("p256_public_key_hash", [6, 161, 164], 20),
  contractHash: kind("contract_hash", [2, 90, 121], 20),
  cryptoboxPublicKeyHash: kind("crypto_box_public_key_hash", [153, 103], 16),
  ed25519PublicKey: kind("ed25519_public_key", [13, 15, 37, 217], 32),
  secp256k1PublicKey: kind("secp256k1_public_key", [3, 254, 226, 86], 33),
  p256PublicKey: kind("p256_public_key", [3, 178, 139, 127], 33),
  ed25519Seed: kind("ed25519_seed", [13, 15, 58, 7], 32),
  ed25519SecretKey: kind("ed25519_secret_key", [43, 246, 78, 7], 64),
  secp256k1SecretKey: kind("secp256k1_secret_key", [17, 162, 224, 201], 32),
  p256SecretKey: kind("p256_secret_key", [16, 81, 238, 189], 32),
  ed25519EncryptedSeed: kind("ed25519_encrypted_seed", [7, 90, 60, 179, 41], 56),
  secp256k1EncryptedSecretKey: kind("secp256k1_encrypted_secret_key", [9, 237, 241, 174, 150], 56),
  p256EncryptedSecretKey: kind("p256_encrypted_secret_key", [9, 48, 57, 115, 171], 56),
  ed25519Signature: kind("ed25519_signature", [9, 245, 205, 134, 18], 64),
  secp256k1Signature: kind("secp256k1_signature", [13, 115, 101, 19, 63], 64),
  p256Signature: kind("p256_signature", [54, 240, 44, 52], 64),
  genericSignature: kind("generic_signature", [4, 130, 43], 64),
  scriptExprHash: kind("script_expr_hash", [13, 44, 64, 27], 32),
  nonceHash: kind("nonce_hash", [69, 220, 169], 32),
  blindedPublicKeyHash: kind("blinded_public_key_hash", [1, 2, 49, 223], 20),
  randomStateHash: kind("random_state_hash", [76, 64, 204], 32),
  secp256k1Scalar: kind("secp256k1_scalar", [38, 248, 136], 33),
  secp256k1Element: kind("secp256k1_element", [5, 92, 0], 33),
  saplingSpendingKey: kind("sapling_spending_key", [11, 237, 20, 92], 169),
  saplingAddress: kind("sapling_address", [18, 71, 40, 223], 43),
} as const;

/** Base58Check string of `payload` under `k`; throws RangeError on a wrong payload length. */
export function b58encode(k: Base58Kind, payload: Uint8Array): string {
  if (payload.length !== k.size) {
    throw new RangeError(`${k.name}: payload must be ${k.size} bytes, got ${payload.length}`);
  }
  const full = new Uint8Array(k.prefix.length + payload.length);
  full.set(k.prefix, 0);
  full.set(payload, k.prefix.length);
  const id = byteString(full);
  const known = encoded.get(id);
  if (known !== undefined) return known;
  const text = flat(bs58check.encode(full));
  encoded.set(id, text);
  decoded.set(text, full);
  return text;
}

const ascii = new TextDecoder();

/**
 * A flat copy of an ASCII text. bs58check builds its text a character at a time, a tree of some
 * fifty concatenations that stays as is wherever the text is kept (map keys, decoded blocks):
 * about 1.5 KB per hash instead of about 70 bytes.
 */
function flat(text: string): string {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return ascii.decode(bytes);
}

/**
 * The longest Base58 text of a kind: each byte is at most log(256)/log(58) < 1.366 digits (a
 * leading zero byte is one digit). Longer texts are refused before decoding, whose cost grows
 * with the square of the length (a 4 MB string would hold the node for minutes).
 */
function maxTextLength(k: Base58Kind): number {
  return Math.ceil((k.prefix.length + k.size + 4) * 1.366) + 1;
}

/** Payload of a Base58Check string of kind `k`, or `undefined` if it is not one. */
export function b58tryDecode(k: Base58Kind, text: string): Uint8Array | undefined {
  if (text.length > maxTextLength(k)) return undefined;
  let raw = decoded.get(text);
  if (raw === undefined) {
    try {
      raw = bs58check.decode(text);
    } catch {
      return undefined;
    }
    decoded.set(text, raw);
  }
  if (raw.length !== k.prefix.length + k.size) return undefined;
  for (let i = 0; i < k.prefix.length; i++) if (raw[i] !== k.prefix[i]) return undefined;
  return raw.slice(k.prefix.length);
}

/** Payload of a Base58Check string of kind `k`; throws a TypeError naming the kind otherwise. */
export function b58decode(k: Base58Kind, text: string): Uint8Array {
  const payload = b58tryDecode(k, text);
  if (payload === undefined) throw new TypeError(`Invalid ${k.name} ${JSON.stringify(text.length > 120 ? text.slice(0, 117) + "..." : text)}`);
  return payload;
}
