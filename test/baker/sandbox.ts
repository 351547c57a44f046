/**
 * A sandbox chain for the baker's tests, wired as `createNode` wires it: the Octez sandbox
 * genesis, the genesis and Hangzhou protocols, a block validator, and (unless told not to) the
 * activation of Hangzhou with the sandbox parameters at `ACTIVATION_TIME`.
 */
import { activateProtocol } from "../../lib/baker/activate.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { sandboxParameters } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";
import { ProtoContext } from "../../lib/protocols/hangzhou/storage/proto-context.ts";
import { type Block, Chain } from "../../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { BlockValidator } from "../../lib/shell/validator.ts";
import { checkout, type Context } from "../../lib/store/context/mod.ts";
import type { KeyValueStore } from "../../lib/store/kv.ts";
import { MemoryStore } from "../../lib/store/memory.ts";

/** Timestamp of the activation block, seconds (2020-09-13T12:26:40Z). */
export const ACTIVATION_TIME = 1_600_000_000;

/** A chain with its validator. */
export interface Sandbox {
  readonly kv: KeyValueStore;
  readonly chain: Chain;
  readonly validator: BlockValidator;
  /** Activates Hangzhou (level 1) if not done yet. */
  activate(): Promise<string>;
  close(): Promise<void>;
}

/** Opens a sandbox chain in `kv` (a new memory store by default), activated unless `activate` is false. */
export async function openSandbox(options: { kv?: KeyValueStore; activate?: boolean } = {}): Promise<Sandbox> {
  const kv = options.kv ?? new MemoryStore();
  const g = SANDBOX_GENESIS;
  const prepare = (c: Context) => applyWrites(c, genesisContextWrites(g.protocol, { genesis_pubkey: g.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(g), genesisBlock(kv, g, prepare), "full");
  const protocols = new Map([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, p]));
  const validator = new BlockValidator(chain, (h) => protocols.get(h));
  const activate = async () =>
    chain.head.hash !== chain.genesis.hash
      ? chain.head.hash
      : activateProtocol({ chain, validator, protocol: hangzhouProtocol.hash, parameters: sandboxParameters(), timestamp: ACTIVATION_TIME });
  if (options.activate !== false) await activate();
  return {
    kv,
    chain,
    validator,
    activate,
    async close() {
      chain.close();
      await kv.close();
    },
  };
}

/** The Hangzhou protocol context of a block's resulting state, prepared at `level` (the block's level by default). */
export function protoContextOf(chain: Chain, block: Block, level = block.header.level): ProtoContext {
  const ctx = checkout(chain.store.kv, b58decode(B58.contextHash, block.header.context));
  if (ctx === undefined) throw new Error(`no context for ${block.hash}`);
  return ProtoContext.prepare(ctx, { level, predecessorTimestamp: block.header.timestamp, timestamp: block.header.timestamp, fitness: 0n });
}
