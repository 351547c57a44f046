/**
 * A sandbox chain for the Hangzhou read services, without the block application: genesis, the
 * real activation block (level 1, Hangzhou initialised from the parameters), and a level-2
 * Hangzhou block made by hand on the same context, with the metadata and one transaction with
 * its receipt as the block application stores them (binary of `hangzhouBlockMetadata` and
 * `operationMetadata`). Served by the node's own directory and handler.
 */
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { rawBlockHeader } from "../../lib/encoding/block-header.ts";
import { encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { protocolData } from "../../lib/encoding/hangzhou/block-header.ts";
import { operation } from "../../lib/encoding/hangzhou/operation.ts";
import { hangzhouBlockMetadata } from "../../lib/encoding/hangzhou/receipts/block-metadata.ts";
import { operationMetadata } from "../../lib/encoding/hangzhou/receipts/contents-results.ts";
import { activateProtocol } from "../../lib/baker/activate.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { sandboxParameters } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";
import { genesisRpc } from "../../lib/rpc/services/genesis.ts";
import { hangzhouRpc } from "../../lib/rpc/services/hangzhou/mod.ts";
import { nodeDirectory, nodeRpcHandler } from "../../lib/rpc/services/mod.ts";
import { Chain } from "../../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { operationsHashOf, hashOperation } from "../../lib/shell/operations.ts";
import type { Protocol } from "../../lib/shell/protocol.ts";
import { ProtocolRegistry } from "../../lib/shell/protocols.ts";
import { BlockValidator } from "../../lib/shell/validator.ts";
import type { Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";

export const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
export const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";
export const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";
/** Activation time (seconds): 2021-01-01T00:00:00Z. */
export const T1 = 1_609_459_200;

/** The level-2 block's metadata (Hangzhou part), as Octez prints it. */
export const LEVEL2_METADATA = {
  baker: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU",
  level_info: { level: 2, level_position: 1, cycle: 0, cycle_position: 1, expected_commitment: false },
  voting_period_info: { voting_period: { index: 0, kind: "proposal", start_position: 0 }, position: 1, remaining: 2 },
  nonce_hash: null,
  consumed_gas: "1520000",
  deactivated: [],
  balance_updates: [
    { kind: "contract", contract: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", change: "-640000000", origin: "block" },
    { kind: "freezer", category: "deposits", delegate: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", cycle: 0, change: "640000000", origin: "block" },
  ],
  liquidity_baking_escape_ema: 0,
  implicit_operations_results: [],
};

/** The transaction of the level-2 block, without its branch (the level-1 block). */
export const TRANSACTION = {
  kind: "transaction",
  source: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
  fee: "1000",
  counter: "1",
  gas_limit: "1520",
  storage_limit: "0",
  amount: "1000000",
  destination: "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN",
};

/** Its receipt (`metadata`), as Octez prints it. */
export const TRANSACTION_METADATA = {
  balance_updates: [
    { kind: "contract", contract: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", change: "-1000", origin: "block" },
    { kind: "freezer", category: "fees", delegate: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", cycle: 0, change: "1000", origin: "block" },
  ],
  operation_result: {
    status: "applied",
    balance_updates: [
      { kind: "contract", contract: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", change: "-1000000", origin: "block" },
      { kind: "contract", contract: "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", change: "1000000", origin: "block" },
    ],
    consumed_gas: "1420",
    consumed_milligas: "1420000",
  },
};

/** A node-like handle over the fixture chain. */
export interface HangzhouFixture {
  fetch(request: Request): Promise<Response>;
  chain: Chain;
  /** Hashes of the activation block and the level-2 block, and of the transaction. */
  level1: string;
  level2: string;
  transaction: string;
  /** The signature the transaction carries. */
  signature: string;
}

/** Builds the fixture with the sandbox parameters patched by `overrides`. */
export async function hangzhouFixture(overrides: { [key: string]: Json } = {}): Promise<HangzhouFixture> {
  const kv = new MemoryStore();
  const genesis = SANDBOX_GENESIS;
  const prepareGenesis = (ctx: Context) => applyWrites(ctx, genesisContextWrites(genesis.protocol, { genesis_pubkey: genesis.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(genesis), genesisBlock(kv, genesis, prepareGenesis), "full");
  const embedded = new Map<string, Protocol>([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const protocols = new ProtocolRegistry(chain.store, [...embedded.keys()]);
  const validator = new BlockValidator(chain, (h) => embedded.get(h));
  const now = () => (T1 + 10) * 1000;
  const rpcs = new Map([genesisRpc(now), hangzhouRpc(now)].map((r) => [r.hash, r]));
  const level1 = await activateProtocol({ chain, validator, protocol: HANGZHOU, parameters: { ...sandboxParameters(), ...overrides }, timestamp: T1 });
  const b1 = chain.block(level1)!;

  // The level-2 block: Hangzhou header data, one transaction in pass 3, receipts as stored.
  const signature = b58encode(B58.genericSignature, new Uint8Array(64).fill(7));
  const opBytes = encodeBinary(operation, operation.fromJson({ branch: level1, contents: [TRANSACTION], signature }));
  const opHash = hashOperation(opBytes);
  const ops = [[], [], [], [opBytes]];
  const bytes = encodeBinary(rawBlockHeader, {
    level: 2,
    proto: b1.header.proto,
    predecessor: level1,
    timestamp: T1 + 1,
    validation_pass: 4,
    operations_hash: operationsHashOf([[], [], [], [opHash]]),
    fitness: [Uint8Array.of(1), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1)],
    context: b1.header.context,
    protocol_data: encodeBinary(
      protocolData,
      protocolData.fromJson({ priority: 0, proof_of_work_nonce: "0000000000000000", liquidity_baking_escape_vote: false, signature: ZERO_SIG }),
    ),
  });
  const level2 = b58encode(B58.blockHash, blake2b256(bytes));
  await chain.storeBlock({
    hash: level2,
    bytes,
    operations: ops,
    contextOps: [],
    info: {
      protocol: HANGZHOU,
      next_protocol: HANGZHOU,
      max_operations_ttl: 2,
      last_allowed_fork_level: 0,
      metadata: encodeBinary(hangzhouBlockMetadata, hangzhouBlockMetadata.fromJson(LEVEL2_METADATA as unknown as Json)),
      operations_metadata: [[], [], [], [encodeBinary(operationMetadata, operationMetadata.fromJson([{ kind: "transaction", ...TRANSACTION_METADATA }] as unknown as Json))]],
    },
  });
  const handler = nodeRpcHandler(nodeDirectory({ chain, protocols, genesis, validator, blockRpc: (h) => rpcs.get(h) }));
  return { fetch: handler, chain, level1, level2, transaction: opHash, signature };
}

/** GET (or another method) on the fixture: status, text and parsed JSON. */
export async function call(node: { fetch(r: Request): Promise<Response> }, path: string, init: RequestInit = {}) {
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.startsWith("application/json") ?? false;
  return { status: res.status, text, json: isJson && text !== "" ? (JSON.parse(text) as any) : undefined, headers: res.headers };
}
