/**
 * Hangzhou's costs of (de)serializing Micheline (Octez `Script_repr`), in milligas, and of the
 * typed-IR size model (`Script_typed_ir_size_costs`).
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import { sAdd, sMul } from "./arith.ts";
import { michelineNodes, michelineSize, type MichelineSize } from "./size.ts";

/** `Script_repr.serialization_cost size`: 100 per node + 10 per string byte + 25 per integer byte. */
export function serializationCost(size: MichelineSize): number {
  return sAdd(sMul(size.nodes, 100), sMul(size.stringBytes, 10), sMul(size.zBytes, 25));
}

/** `Script_repr.deserialization_cost size`: 60 per node + 10 per string byte + 10 per integer byte. */
export function deserializationCost(size: MichelineSize): number {
  return sAdd(sMul(size.nodes, 60), sMul(size.stringBytes, 10), sMul(size.zBytes, 10));
}

/** `Script_repr.deserialization_cost_estimated_from_bytes n`: 20 per byte. */
export function deserializationCostEstimatedFromBytes(bytesLen: number): number {
  return sMul(20, bytesLen);
}

/** `Script_repr.serialization_cost_estimated_from_bytes n`: 33 per byte. */
export function serializationCostEstimatedFromBytes(bytesLen: number): number {
  return sMul(33, bytesLen);
}

/** `Script_repr.cost_micheline_strip_locations nodes`: 51 per node. */
export function costMichelineStripLocations(nodes: number): number {
  return sMul(nodes, 51);
}

/** `Script_repr.strip_locations_cost node`: 51 per node of the term (annotations not counted). */
export function stripLocationsCost(node: Micheline): number {
  return costMichelineStripLocations(michelineNodes(node));
}

/** `Script_repr.bytes_node_cost bytes` (= serialization estimated from the byte length). */
export function bytesNodeCost(bytes: Uint8Array): number {
  return serializationCostEstimatedFromBytes(bytes.length);
}

/** `Script_repr.deserialized_cost expr`: deserializing a term already in memory, by its size. */
export function deserializedCost(expr: Micheline): number {
  return deserializationCost(michelineSize(expr));
}

/** `Script_repr.serialized_cost bytes`: serialization estimated from the encoded bytes (33 per byte). */
export function serializedCost(bytes: Uint8Array): number {
  return serializationCostEstimatedFromBytes(bytes.length);
}

/**
 * `Script_repr.force_decode_cost lexpr`: decoding a lazy expression held as `bytesLen` bytes
 * (20 per byte); 0 when it is already decoded (pass `undefined`).
 */
export function forceDecodeCost(bytesLen: number | undefined): number {
  return bytesLen === undefined ? 0 : deserializationCostEstimatedFromBytes(bytesLen);
}

/**
 * `Script_repr.force_bytes_cost expr`: encoding a lazy expression held as a decoded term
 * (`serializationCost` of its size); 0 when it is already held as bytes (pass `undefined`).
 */
export function forceBytesCost(expr: Micheline | undefined): number {
  return expr === undefined ? 0 : serializationCost(michelineSize(expr));
}

/** `Script_typed_ir_size_costs.nodes_cost ~nodes`: 45 per node of the typed-IR size model. */
export function nodesCost(nodes: number): number {
  return sMul(45, nodes);
}

/**
 * `Script_ir_translator.pack_node` (PACK after unparsing, and the key hashing of big maps):
 * stripping locations of the `nodes`-node unparsed term, then serializing it twice as Octez
 * does (`serialized_cost` of the `encodedLength` binary bytes, then of the 0x05-prefixed
 * bytes). Add `Interp.blake2b` of the packed bytes for a hash (`hash_bytes`), and the
 * unparsing (`Unparse.unparseDataCycle` per node) before.
 */
export function packNodeCost(nodes: number, encodedLength: number): number {
  return sAdd(
    costMichelineStripLocations(nodes),
    serializationCostEstimatedFromBytes(encodedLength),
    serializationCostEstimatedFromBytes(encodedLength + 1),
  );
}
