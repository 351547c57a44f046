/**
 * Checks for what Octez's OpenAPI files only say in prose (titles such as "A block identifier
 * (Base58Check-encoded)" or "Decimal representation of a big number"), by component name, for
 * {@link OpenApi.validate}'s `formats` option. Base58Check values are decoded with their prefix and
 * payload length (lib/encoding/base58.ts), so a wrong kind of hash or a bad checksum fails.
 */
import { B58, type Base58Kind, b58tryDecode } from "../../lib/encoding/base58.ts";
import type { ValidateOptions } from "../support/openapi.ts";

function base58(name: string, ...kinds: Base58Kind[]): (v: unknown) => string | undefined {
  return (v) => (typeof v === "string" && kinds.some((k) => b58tryDecode(k, v) !== undefined) ? undefined : `${JSON.stringify(v)} is not a ${name} (Base58Check)`);
}

function matching(name: string, re: RegExp): (v: unknown) => string | undefined {
  return (v) => (typeof v === "string" && re.test(v) ? undefined : `${JSON.stringify(v)} is not ${name}`);
}

const PKH = [B58.ed25519PublicKeyHash, B58.secp256k1PublicKeyHash, B58.p256PublicKeyHash];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** Format checks for the components of rpc-openapi.json, hangzhou-openapi.json and hangzhou-mempool-openapi.json. */
export const OCTEZ_FORMATS: NonNullable<ValidateOptions["formats"]> = {
  block_hash: base58("block hash", B58.blockHash),
  Operation_hash: base58("operation hash", B58.operationHash),
  Operation_list_list_hash: base58("operation list list hash", B58.operationListListHash),
  Protocol_hash: base58("protocol hash", B58.protocolHash),
  Context_hash: base58("context hash", B58.contextHash),
  Chain_id: base58("chain id", B58.chainId),
  Block_metadata_hash: base58("block metadata hash", B58.blockMetadataHash),
  Operation_metadata_hash: base58("operation metadata hash", B58.operationMetadataHash),
  Operation_metadata_list_list_hash: base58("operation metadata list list hash", B58.operationMetadataListListHash),
  "Signature.Public_key_hash": base58("public key hash", ...PKH),
  "Ed25519.Public_key_hash": base58("Ed25519 public key hash", B58.ed25519PublicKeyHash),
  "Signature.Public_key": base58("public key", B58.ed25519PublicKey, B58.secp256k1PublicKey, B58.p256PublicKey),
  Signature: base58("signature", B58.genericSignature, B58.ed25519Signature, B58.secp256k1Signature, B58.p256Signature),
  cycle_nonce: base58("nonce hash", B58.nonceHash),
  script_expr: base58("script expression hash", B58.scriptExprHash),
  "011-PtHangz2.contract_id": base58("contract id", ...PKH, B58.contractHash),
  "Crypto_box.Public_key_hash": base58("crypto-box public key hash", B58.cryptoboxPublicKeyHash),
  int64: matching("a decimal int64", /^-?(0|[1-9][0-9]*)$/),
  bignum: matching("a decimal big number", /^-?(0|[1-9][0-9]*)$/),
  positive_bignum: matching("a positive decimal big number", /^(0|[1-9][0-9]*)$/),
  "timestamp.protocol": matching("an RFC 3339 timestamp or decimal seconds", new RegExp(`${RFC3339.source}|^-?(0|[1-9][0-9]*)$`)),
  // Octez prints a system time with milliseconds and "-00:00" (Ptime's RFC 3339 for UTC)
  "timestamp.system": matching("a system time as Octez prints it", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-00:00$/),
  // P2p_addr: an IPv6 text (IPv4 addresses as IPv4-mapped IPv6)
  p2p_address: matching("an IPv6 text", /^(?=.*:)[0-9a-f:.]+$/),
};
