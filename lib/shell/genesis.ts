/**
 * The genesis block of a chain, built as Octez builds the sandbox's: a configured block hash,
 * time and genesis protocol, and a context prepared by the genesis protocol (which records the
 * protocol, the sandbox parameters and the key that signs the activation block).
 * @module
 */
import { B58, b58decode, b58encode } from "../encoding/base58.ts";
import { rawBlockHeader } from "../encoding/block-header.ts";
import { encodeBinary } from "../encoding/codec.ts";
import { parseTimestamp } from "../encoding/time.ts";
import { chainIdOfGenesis, operationListListHash } from "../crypto/hashes.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { commit, type Context, emptyContext } from "../store/context/mod.ts";
import type { NewBlock } from "./chain.ts";

/** What defines a chain's genesis (Octez's `genesis` network settings). */
export interface GenesisConfig {
  /** Genesis block hash (a constant, not the hash of the header). */
  readonly block: string;
  /** Genesis time, RFC 3339. */
  readonly time: string;
  /** Genesis protocol hash. */
  readonly protocol: string;
  /** Public key that must sign the activation block (`sandbox_parameter`). */
  readonly genesisPubkey: string;
  /** Chain name announced to peers. */
  readonly chainName: string;
}

/** The sandbox network of Octez (`--network sandbox`). */
export const SANDBOX_GENESIS: GenesisConfig = {
  block: "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2",
  time: "2018-06-30T16:07:32Z",
  protocol: "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im",
  genesisPubkey: "edpkuSLWfVU1Vq7Jg9FucPyKmma6otcMHac9zG4oU1KMHSTBpJuGQ2",
  chainName: "SANDBOXED_TEZOS",
};

/** Chain id (raw 4 bytes) of a genesis block hash. */
export function chainIdOf(config: GenesisConfig): Uint8Array {
  return chainIdOfGenesis(b58decode(B58.blockHash, config.block));
}

/**
 * The genesis block and its context writes, ready for `Chain.open`. `prepare` fills the empty
 * context as the genesis protocol does (Octez's `commit_genesis` and the protocol's `init`).
 */
export function genesisBlock(kv: KeyValueStore, config: GenesisConfig, prepare: (empty: Context) => Context): NewBlock {
  const timestamp = parseTimestamp(config.time);
  if (timestamp === undefined) throw new TypeError(`Invalid genesis time ${JSON.stringify(config.time)}`);
  const ctx = prepare(emptyContext(kv));
  const { hash, ops } = commit(ctx, { parents: [], time: timestamp, message: "Genesis" });
  const bytes = encodeBinary(rawBlockHeader, {
    level: 0,
    proto: 0,
    predecessor: config.block,
    timestamp,
    validation_pass: 0,
    operations_hash: b58encode(B58.operationListListHash, operationListListHash([])),
    fitness: [],
    context: b58encode(B58.contextHash, hash),
    protocol_data: new Uint8Array(0),
  });
  return {
    hash: config.block,
    bytes,
    operations: [],
    info: {
      protocol: config.protocol,
      next_protocol: config.protocol,
      max_operations_ttl: 0,
      last_allowed_fork_level: 0,
      metadata: new Uint8Array(0),
      operations_metadata: [],
    },
    contextOps: ops,
  };
}
