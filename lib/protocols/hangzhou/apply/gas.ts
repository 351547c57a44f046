/**
 * The gas model of Hangzhou's manager operations, as far as this node runs them (Octez
 * `michelson_v1_gas.ml`, `storage_costs.ml`, `script_repr.ml`). Every cost is in milligas
 * (1 gas = 1000 milligas), the unit `ProtoContext.consumeGas` takes.
 *
 * | what | milligas | Octez |
 * |---|---|---|
 * | any manager content | 1 000 000 | `Cost_of.manager_operation` |
 * | a reveal (this node) | 500 000 | Hangzhou charges the base 1 000 000; see `docs/protocol-differences.md` |
 * | read of a carbonated key | 200 000 + 5 000·path length + 2·bytes read | `Storage_costs.read_access` |
 * | deserialising a lazy expression from bytes | 20·bytes | `deserialization_cost_estimated_from_bytes` |
 *
 * A transaction to an implicit account costs the base plus the lookups of the destination's code
 * and storage (two missing keys of path length 2): 1 420 000 milligas.
 * @module
 */

/** Milligas per gas unit (`Gas_limit_repr.scaling_factor`). */
export const MILLIGAS_PER_GAS = 1000n;

/** Base cost of every manager content, milligas (`Michelson_v1_gas.Cost_of.manager_operation`: 1000 gas). */
export const MANAGER_OPERATION_COST = 1_000_000n;

/**
 * Cost of a reveal on this node, milligas (500 gas). Hangzhou charges the base 1000 gas; current
 * clients (Taquito 24+) put fixed gas limits of 633 (tz1), 581 (tz2) and 1654 (tz3) on the
 * reveals they add to a batch, so the reveal must cost less than 581 gas for them to work.
 */
export const REVEAL_COST = 500_000n;

/** Cost of reading a carbonated storage key, milligas (`Storage_costs.read_access`). */
export function readAccessCost(pathLength: number, readBytes: number): bigint {
  if (!Number.isInteger(pathLength) || pathLength < 0) throw new RangeError(`pathLength must be a non-negative integer, got ${pathLength}`);
  if (!Number.isInteger(readBytes) || readBytes < 0) throw new RangeError(`readBytes must be a non-negative integer, got ${readBytes}`);
  return 200_000n + 5_000n * BigInt(pathLength) + 2n * BigInt(readBytes);
}

/**
 * Gas of looking up an implicit destination's script (`Script_cache.find` on an account without
 * code): the missing `code` and `storage` keys, 2 × 210 000 milligas.
 */
export const IMPLICIT_SCRIPT_LOOKUP_COST = 2n * readAccessCost(2, 0);

/**
 * Cost of deserialising a Micheline expression received as `byteLength` bytes, milligas
 * (`Script_repr.deserialization_cost_estimated_from_bytes`: 20 per byte).
 */
export function deserializationCost(byteLength: number): bigint {
  if (!Number.isInteger(byteLength) || byteLength < 0) throw new RangeError(`byteLength must be a non-negative integer, got ${byteLength}`);
  return 20n * BigInt(byteLength);
}
