/**
 * Where Hangzhou keeps its state in the context, and how values are written there: the key
 * layout of Octez's `storage.ml` (environment V3, flattened in protocol H) and the binary forms
 * of its values.
 *
 * Path segments follow Octez's indexes, so that iteration in key order is Octez's order:
 * - a contract is the lowercase hex of its 22-byte binary id (`0000…` tz1, `0001…` tz2,
 *   `0002…` tz3, `01…` KT1);
 * - a delegate (public key hash) is two segments, `"ed25519" | "secp256k1" | "p256"` then the hex
 *   of its 20 bytes, so delegates iterate ed25519 < p256 < secp256k1 (HANGZHOU-FACTS §8);
 * - cycles, levels and roll ids are decimal int32s (their iteration order does not matter: Octez
 *   walks rolls by number and cycles explicitly);
 * - blinded key hashes, script expression hashes: lowercase hex.
 *
 * Values: tez are Zarith N (`Tez_repr`), counters and byte counts Zarith Z, rolls, cycles and
 * levels int32, `roll_snapshot` a uint16, keys the tagged binary keys, key hashes the tagged
 * binary hashes (21 bytes), members of sets the bytes `inited`.
 * @module
 */
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { DecodeError, Reader, Writer } from "../../../encoding/codec.ts";
import { fromHex, toHex } from "../../../encoding/hex.ts";
import { contractIdBytes } from "../../../encoding/keys.ts";
import { readN, readZ, writeN, writeZ } from "../../../encoding/zarith.ts";
import {
  CURVES,
  formatPublicKeyHash,
  parsePublicKeyHash,
  publicKeyFromBinary,
  publicKeyHashFromBinary,
  publicKeyHashFromBytes,
  publicKeyHashToBinary,
  publicKeyToBinary,
  type Curve,
  type PublicKey,
} from "../../../crypto/keys.ts";

/** A context path. */
export type Path = readonly string[];

// ---------------------------------------------------------------------------------------------
// Index segments

const contractHexCache = new Map<string, string>();

/** The path segment of a contract (`tz…` or `KT1…`): hex of its 22-byte binary id. TypeError if invalid. */
export function contractSegment(contract: string): string {
  let hex = contractHexCache.get(contract);
  if (hex === undefined) {
    if (typeof contract !== "string") throw new TypeError(`contract must be a string, got ${typeof contract}`);
    const b = contractIdBytes(contract);
    if (b === undefined) throw new TypeError(`Invalid contract id ${JSON.stringify(contract)}`);
    hex = toHex(b);
    if (contractHexCache.size > 100_000) contractHexCache.clear();
    contractHexCache.set(contract, hex);
  }
  return hex;
}

/** The contract (`tz…`/`KT1…`) of a path segment; DecodeError if it is not one. */
export function contractOfSegment(segment: string): string {
  const b = fromHex(segment);
  if (b.length !== 22) throw new DecodeError(`Contract segment ${segment} is not 22 bytes`);
  return contractOfBinary(b);
}

/** Contract id (`tz…`/`KT1…`) of its 22-byte binary form. */
export function contractOfBinary(b: Uint8Array): string {
  if (b.length !== 22) throw new DecodeError(`A contract id is 22 bytes, got ${b.length}`);
  if (b[0] === 0) return formatPublicKeyHash(publicKeyHashFromBinary(b.subarray(1)));
  if (b[0] === 1 && b[21] === 0) return b58encode(B58.contractHash, b.subarray(1, 21));
  throw new DecodeError(`Invalid contract id bytes ${toHex(b)}`);
}

/** The 22-byte binary id of a contract; TypeError if invalid. */
export function contractBinary(contract: string): Uint8Array {
  const b = typeof contract === "string" ? contractIdBytes(contract) : undefined;
  if (b === undefined) throw new TypeError(`Invalid contract id ${JSON.stringify(contract)}`);
  return b;
}

/** Whether a contract id is an implicit account (`tz1`/`tz2`/`tz3`) rather than an originated `KT1`. */
export function isImplicit(contract: string): boolean {
  return !contractSegment(contract).startsWith("01");
}

/** The originated contract `KT1…` of a contract hash (20 bytes). */
export function originatedContract(hash: Uint8Array): string {
  return b58encode(B58.contractHash, hash);
}

/** The two path segments of a public key hash (`Public_key_hash.to_path`): curve name, hex. */
export function pkhSegments(pkh: string): [Curve, string] {
  if (typeof pkh !== "string") throw new TypeError(`public key hash must be a string, got ${typeof pkh}`);
  const h = parsePublicKeyHash(pkh);
  return [h.curve, toHex(h.bytes)];
}

/** The public key hash (`tz…`) of its two path segments. */
export function pkhOfSegments(curve: string, hex: string): string {
  if (!(CURVES as readonly string[]).includes(curve)) throw new DecodeError(`Unknown curve segment ${curve}`);
  return formatPublicKeyHash(publicKeyHashFromBytes(curve as Curve, fromHex(hex)));
}

// ---------------------------------------------------------------------------------------------
// Paths (Octez names)

const CONTRACTS_INDEX = ["contracts", "index"] as const;

/** `contracts/index/<contract>/…`. */
export function contractPath(contract: string, ...rest: string[]): string[] {
  return [...CONTRACTS_INDEX, contractSegment(contract), ...rest];
}

/** `contracts/index`: the directory of every allocated contract. */
export const CONTRACTS_INDEX_PATH: Path = CONTRACTS_INDEX;
/** `contracts/global_counter`. */
export const GLOBAL_COUNTER_PATH: Path = ["contracts", "global_counter"];

/** `contracts/index/<c>/frozen_balance/<cycle>/<kind>`. */
export function frozenPath(delegate: string, cycle: number, kind?: FrozenKind): string[] {
  const p = contractPath(delegate, "frozen_balance", String(cycle));
  if (kind !== undefined) p.push(kind);
  return p;
}

/** The three frozen balances, as named in the context. */
export type FrozenKind = "deposits" | "fees" | "rewards";

/** `contracts/index/<d>/delegated/<contract>`: the contracts delegating to d. */
export function delegatedPath(delegate: string, contract?: string): string[] {
  const p = contractPath(delegate, "delegated");
  if (contract !== undefined) p.push(contractSegment(contract));
  return p;
}

/** A script part stored as Octez's carbonated maps do: `<c>/data/<name>` and its length `<c>/len/<name>`. */
export function carbonatedPaths(contract: string, name: "code" | "storage"): { data: string[]; len: string[] } {
  return { data: contractPath(contract, "data", name), len: contractPath(contract, "len", name) };
}

/** `delegates/<curve>/<hex>`: the registered delegates. */
export function delegatesPath(pkh?: string): string[] {
  return pkh === undefined ? ["delegates"] : ["delegates", ...pkhSegments(pkh)];
}

/** `active_delegates_with_rolls/<curve>/<hex>`. */
export function activeDelegatesPath(pkh?: string): string[] {
  return pkh === undefined ? ["active_delegates_with_rolls"] : ["active_delegates_with_rolls", ...pkhSegments(pkh)];
}

/** `delegates_with_frozen_balance/<cycle>/<curve>/<hex>`. */
export function delegatesWithFrozenBalancePath(cycle: number, pkh?: string): string[] {
  const p = ["delegates_with_frozen_balance", String(cycle)];
  if (pkh !== undefined) p.push(...pkhSegments(pkh));
  return p;
}

/** `rolls/next`. */
export const ROLLS_NEXT_PATH: Path = ["rolls", "next"];
/** `rolls/limbo`. */
export const ROLLS_LIMBO_PATH: Path = ["rolls", "limbo"];
/** `rolls/owner/current`: the owner of every owned roll. */
export const ROLLS_OWNER_CURRENT_PATH: Path = ["rolls", "owner", "current"];

/** `rolls/index/<roll>/successor`. */
export function rollSuccessorPath(roll: number): string[] {
  return ["rolls", "index", String(roll), "successor"];
}

/** `rolls/owner/current/<roll>`. */
export function rollOwnerPath(roll: number): string[] {
  return ["rolls", "owner", "current", String(roll)];
}

/** `rolls/owner/snapshot/<cycle>/<index>[/<roll>]`. */
export function rollSnapshotPath(cycle: number, index: number, roll?: number): string[] {
  const p = ["rolls", "owner", "snapshot", String(cycle), String(index)];
  if (roll !== undefined) p.push(String(roll));
  return p;
}

/** `cycle/<c>/…`. */
export function cyclePath(cycle: number, ...rest: string[]): string[] {
  return ["cycle", String(cycle), ...rest];
}

/** `commitments/<blinded key hash hex>`. */
export function commitmentPath(blindedPkh: string): string[] {
  return ["commitments", toHex(b58decode(B58.blindedPublicKeyHash, blindedPkh))];
}

/** `votes/<name>`. */
export function votesPath(...rest: string[]): string[] {
  return ["votes", ...rest];
}

/** `big_maps/index/<id>/…`. */
export function bigMapPath(id: bigint, ...rest: string[]): string[] {
  return ["big_maps", "index", id.toString(), ...rest];
}

/** `version`: `hangzhou_011` once Hangzhou initialised the context. */
export const VERSION_PATH: Path = ["version"];
/** The value of {@link VERSION_PATH} (`Raw_context.version_value`). */
export const VERSION_VALUE = "hangzhou_011";
/** `v1/constants`: the parametric constants, binary. */
export const CONSTANTS_PATH: Path = ["v1", "constants"];
/** `v1/cycle_eras`: the cycle eras, binary. */
export const CYCLE_ERAS_PATH: Path = ["v1", "cycle_eras"];
/** `protocol_parameters`: the activation's parameters, removed by Hangzhou's init. */
export const PROTOCOL_PARAMETERS_PATH: Path = ["protocol_parameters"];
/** `block_priority` (uint16). */
export const BLOCK_PRIORITY_PATH: Path = ["block_priority"];
/** `liquidity_baking_escape_ema` (int32). */
export const LB_ESCAPE_EMA_PATH: Path = ["liquidity_baking_escape_ema"];
/** `liquidity_baking_cpmm_address` (22-byte contract id). */
export const LB_CPMM_ADDRESS_PATH: Path = ["liquidity_baking_cpmm_address"];
/** `big_maps/next` (Zarith Z). */
export const BIG_MAPS_NEXT_PATH: Path = ["big_maps", "next"];
/** `sapling/next` (Zarith Z). */
export const SAPLING_NEXT_PATH: Path = ["sapling", "next"];
/** `ramp_up/rewards/<cycle>`. */
export function rampUpRewardsPath(cycle: number): string[] {
  return ["ramp_up", "rewards", String(cycle)];
}
/** `ramp_up/deposits/<cycle>`. */
export function rampUpDepositsPath(cycle: number): string[] {
  return ["ramp_up", "deposits", String(cycle)];
}

// ---------------------------------------------------------------------------------------------
// Values

/** The value stored for a member of a set (`Make_data_set_storage`): the bytes `inited`. */
export const INITED: Uint8Array = new TextEncoder().encode("inited");

const MAX_MUTEZ = (1n << 63n) - 1n;

/** Binary tez (`Tez_repr.encoding`: Zarith N). */
export function encodeTez(v: bigint): Uint8Array {
  if (typeof v !== "bigint") throw new TypeError(`tez amount must be a bigint, got ${typeof v}`);
  if (v < 0n || v > MAX_MUTEZ) throw new RangeError(`tez amount out of range: ${v}`);
  const w = new Writer();
  writeN(w, v);
  return w.bytes();
}

/** Reads binary tez. */
export function decodeTez(b: Uint8Array): bigint {
  const r = new Reader(b);
  const v = readN(r, 10);
  if (r.remaining !== 0 || v > MAX_MUTEZ) throw new DecodeError("Invalid tez bytes");
  return v;
}

/** Binary Zarith Z (counters, byte counts, big map ids). */
export function encodeZ(v: bigint): Uint8Array {
  if (typeof v !== "bigint") throw new TypeError(`expected a bigint, got ${typeof v}`);
  const w = new Writer();
  writeZ(w, v);
  return w.bytes();
}

/** Reads a binary Zarith Z. */
export function decodeZ(b: Uint8Array): bigint {
  const r = new Reader(b);
  const v = readZ(r);
  if (r.remaining !== 0) throw new DecodeError("Invalid Z bytes");
  return v;
}

/** A big-endian int32 (rolls, cycles, levels, EMA). */
export function encodeInt32(v: number): Uint8Array {
  if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw new RangeError(`not an int32: ${v}`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, v);
  return out;
}

/** Reads a big-endian int32. */
export function decodeInt32(b: Uint8Array): number {
  if (b.length !== 4) throw new DecodeError(`An int32 is 4 bytes, got ${b.length}`);
  return new DataView(b.buffer, b.byteOffset, 4).getInt32(0);
}

/** A big-endian uint16 (`roll_snapshot`, `block_priority`). */
export function encodeUint16(v: number): Uint8Array {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new RangeError(`not a uint16: ${v}`);
  return Uint8Array.of(v >> 8, v & 0xff);
}

/** Reads a big-endian uint16. */
export function decodeUint16(b: Uint8Array): number {
  if (b.length !== 2) throw new DecodeError(`A uint16 is 2 bytes, got ${b.length}`);
  return (b[0]! << 8) | b[1]!;
}

/** Tagged binary key hash (21 bytes) of a `tz…`. */
export function encodePkh(pkh: string): Uint8Array {
  return publicKeyHashToBinary(parsePublicKeyHash(pkh));
}

/** `tz…` of a tagged binary key hash. */
export function decodePkh(b: Uint8Array): string {
  return formatPublicKeyHash(publicKeyHashFromBinary(b));
}

const keyCache = new Map<string, PublicKey>();

/** Tagged binary public key. */
export function encodePublicKey(pk: PublicKey): Uint8Array {
  return publicKeyToBinary(pk);
}

/**
 * The public key of its tagged binary form. The same object is returned for the same bytes, so
 * caches keyed by key objects (the rights' key-hash cache) keep working across reads.
 */
export function decodePublicKey(b: Uint8Array): PublicKey {
  const hex = toHex(b);
  let pk = keyCache.get(hex);
  if (pk === undefined) {
    pk = publicKeyFromBinary(b);
    if (keyCache.size > 10_000) keyCache.clear();
    keyCache.set(hex, pk);
  }
  return pk;
}

/** A contract's manager (`Manager_repr`): a key hash until the key is revealed, then the key. */
export type Manager = { kind: "hash"; pkh: string } | { kind: "public_key"; publicKey: PublicKey };

/** Binary manager: tag 0 ‖ key hash, or tag 1 ‖ public key. */
export function encodeManager(m: Manager): Uint8Array {
  const inner = m.kind === "hash" ? encodePkh(m.pkh) : encodePublicKey(m.publicKey);
  const out = new Uint8Array(1 + inner.length);
  out[0] = m.kind === "hash" ? 0 : 1;
  out.set(inner, 1);
  return out;
}

/** Reads a binary manager. */
export function decodeManager(b: Uint8Array): Manager {
  if (b[0] === 0) return { kind: "hash", pkh: decodePkh(b.subarray(1)) };
  if (b[0] === 1) return { kind: "public_key", publicKey: decodePublicKey(b.subarray(1)) };
  throw new DecodeError(`Unknown manager tag ${b[0]}`);
}
