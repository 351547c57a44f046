/**
 * What the distributed DB answers with, read from the node's prevalidator and protocols as Octez
 * v12 keeps them: the mempool it advertises with its head (`prevalidator.ml`,
 * `update_advertised_mempool_fields`: the applied operations in their order as known valid, the
 * pending ones), the operations it propagates (those its distributed DB table still holds: all
 * but refused and outdated ones), and the protocols its store holds (a record whose hash is its
 * own: Octez does not store embedded sources that hash otherwise, such as the genesis protocol's).
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import { B58, b58encode } from "../../encoding/base58.ts";
import { emptyMempool, type Mempool } from "../../p2p/encoding/mempool.ts";
import type { Chain } from "../chain.ts";
import type { Prevalidator } from "../prevalidator.ts";
import type { ProtocolRegistry } from "../protocols.ts";

/** The mempool advertised with the head: empty while the prevalidator is not on the chain's head yet. */
export function advertisedMempool(prevalidator: Prevalidator, chain: Chain): Mempool {
  if (prevalidator.head?.hash !== chain.head.hash) return emptyMempool();
  const v = prevalidator.view();
  return { known_valid: v.applied.map((e) => e.op.hash), pending: v.unprocessed.map((op) => op.hash) };
}

/** The bytes of an operation the node propagates: applied, branch delayed, branch refused or pending. */
export function propagatedOperation(prevalidator: Prevalidator, hash: string): Uint8Array | undefined {
  const v = prevalidator.view();
  for (const e of v.applied) if (e.op.hash === hash) return e.op.bytes;
  for (const e of [...v.branch_delayed, ...v.branch_refused]) if (e.op.hash === hash) return e.op.bytes;
  for (const op of v.unprocessed) if (op.hash === hash) return op.bytes;
  return undefined;
}

/** The record of a known protocol whose bytes hash to `hash`. */
export async function storedProtocol(protocols: ProtocolRegistry, hash: string): Promise<Uint8Array | undefined> {
  const bytes = await protocols.sources(hash);
  if (bytes === undefined || b58encode(B58.protocolHash, blake2b256(bytes)) !== hash) return undefined;
  return bytes;
}
