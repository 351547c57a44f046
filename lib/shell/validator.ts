/**
 * The block validator: checks a block against its predecessor as Octez's shell does
 * (`block_validation.ml`), runs the protocol on it (activating the next protocol when the
 * context switches), commits the context and checks the announced hashes. It also builds
 * blocks (`preapply`) for the baker and the `preapply/block` RPC.
 *
 * Each `apply` and `inject` is a validation request and each `preapply` a pre-application
 * request of its worker (`worker`, Octez's block validator worker): they run one at a time, in
 * the order they came, and their outcomes are recorded as Octez's events.
 * @module
 */
import { B58, b58decode, b58encode } from "../encoding/base58.ts";
import { rawBlockHeader, type RawBlockHeader, type ShellHeader, shellHeader } from "../encoding/block-header.ts";
import { toHex } from "../encoding/hex.ts";
import { DecodeError, decodeBinary, encodeBinary } from "../encoding/codec.ts";
import { compareFitness } from "../encoding/fitness.ts";
import { blockHash } from "../crypto/hashes.ts";
import { TezosError } from "../errors/registry.ts";
import { checkout, commit, type Context } from "../store/context/mod.ts";
import type { Block, Chain, NewBlock } from "./chain.ts";
import {
  type BlockError,
  inconsistentContextHash,
  inconsistentOperationsHash,
  invalidBlock,
  knownInvalid,
  unavailableProtocol,
  unknownAncestor,
} from "./errors.ts";
import { hashOperation, operationsHashOf, shellOperation } from "./operations.ts";
import type { BlockResult, Protocol, ShellOperation, SignatureWaived, SignatureWaivers, ValidationState, WaivedOperation } from "./protocol.ts";
import { errorsOf, Worker } from "./worker.ts";
import { type Logger, SILENT_LOGGER } from "../log.ts";
import { type BlockValidatorEvent, blockValidatorEventLevel, type BlockValidatorRequest } from "./worker-states.ts";

/**
 * Changes the context of `pred` before a block is built (`build`: the baker's or `preapply`'s)
 * or applied (`apply`: a block that was not built here, or is applied again) on it: the
 * sandbox's state changes. It must give the same context for every block on one predecessor
 * once a block was built on it, so that the node's own validation accepts what it built.
 */
export type PrepareContext = (pred: Block, context: Context, purpose: "build" | "apply") => Context | Promise<Context>;

/** Finds the implementation of a protocol hash, if the node has one. */
export type ProtocolLookup = (hash: string) => Protocol | undefined;

/** A built block before it is signed: its shell header and what applying it gave. */
export interface Preapplied {
  readonly shell: ShellHeader;
  readonly receipts: Uint8Array[][];
  readonly result: BlockResult;
}

/** What applying a block gave, ready to store: the block's info and its context writes. */
type Applied = Pick<NewBlock, "info" | "contextOps">;

/** A block the validator built, kept for its application: what it gave, and the protocol data it was built with. */
interface Built {
  readonly applied: Applied;
  readonly protocolData: Uint8Array;
  /** The operations built in with their signature waived (see {@link BlockValidator.signatures}). */
  readonly waived: readonly WaivedOperation[];
}

/**
 * How many built blocks the validator remembers for their application (the baker's, and those
 * of the `preapply/block` RPC that a client signs and injects).
 */
export const BUILT_BLOCKS_KEPT = 4;

const PROTOCOL_KEY = ["protocol"];

/** Validates blocks for one chain. */
export class BlockValidator {
  readonly chain: Chain;
  readonly protocols: ProtocolLookup;
  /**
   * Blocks built by {@link preapply} with protocol data, by their shell header (context hash
   * included), oldest first. A block that arrives with one of these shell headers and protocol
   * data its protocol says were sealed from the built ones is not applied again: the protocol
   * checks its header (`checkHeader`) and the built result is stored.
   */
  private readonly built = new Map<string, Built>();
  /** The requests (validations, pre-applications), one at a time, and their events. */
  readonly worker: Worker<BlockValidatorRequest, BlockValidatorEvent>;

  /** Where blocks from peers are told once validated (`block_validated`); nowhere by default. */
  private readonly log: Logger;

  /**
   * Which signatures may be waived (the sandbox's impersonation): in the blocks this validator
   * builds, and in the application of a block whose waived operations it recorded when it
   * stored the block. None when absent.
   */
  readonly signatures: SignatureWaivers | undefined;

  /**
   * What changes a predecessor's context before a block is built or applied on it (the sandbox's
   * state changes, `lib/sandbox/changes.ts`); the context as stored when absent.
   */
  private readonly prepareContext: PrepareContext | undefined;

  /** `options.now`: the worker's clock (`Date.now` when absent); `options.log`: see {@link log}; `options.signatures`: see {@link signatures}; `options.prepareContext`: see {@link PrepareContext}. */
  constructor(chain: Chain, protocols: ProtocolLookup, options: { now?: () => number; log?: Logger; signatures?: SignatureWaivers; prepareContext?: PrepareContext } = {}) {
    this.chain = chain;
    this.prepareContext = options.prepareContext;
    this.signatures = options.signatures;
    this.log = options.log ?? SILENT_LOGGER;
    this.protocols = protocols;
    this.worker = new Worker<BlockValidatorRequest, BlockValidatorEvent>({
      name: { base: "validator-block" },
      now: options.now ?? Date.now,
      level: blockValidatorEventLevel,
      onCompletion: (request, status) =>
        this.worker.record(request.kind === "validation" ? { kind: "validation_success", request, status } : { kind: "preapplication_success", request, status }),
      onError: (request, status, e) => {
        const errors = errorsOf(e);
        this.worker.record(request.kind === "validation" ? { kind: "validation_failure", request, status, errors } : { kind: "preapplication_failure", request, status, errors });
        return "continue"; // as Octez's: the worker goes on
      },
    });
    this.worker.started();
  }

  /** The validation request of a block (Octez's view: its hash, the chain, the peer it came from). */
  private validation(bytes: Uint8Array, peer: string | undefined): BlockValidatorRequest {
    return { kind: "validation", block: this.hashOf(bytes), chain_id: this.chain.chainId, ...(peer === undefined ? {} : { peer }) };
  }

  /**
   * Applies a block given as raw header bytes and operation bytes per validation pass; the
   * block to store (not stored yet). Throws a TezosError with Octez's errors when it is invalid.
   * `options.peer`: the peer it came from, shown in the request.
   */
  apply(bytes: Uint8Array, operations: readonly (readonly Uint8Array[])[], options: { peer?: string } = {}): Promise<NewBlock> {
    return this.worker.push(this.validation(bytes, options.peer), async () => (await this.validate(bytes, operations)).block);
  }

  /** The block, and the operations it holds with a waived signature when the node built it. */
  private async validate(bytes: Uint8Array, operations: readonly (readonly Uint8Array[])[]): Promise<{ block: NewBlock; waived: readonly WaivedOperation[] }> {
    const hash = b58encode(B58.blockHash, blockHash(bytes));
    const fail = (error: BlockError) => invalidBlock.error({ invalid_block: hash, ...error });
    let header: RawBlockHeader;
    try {
      header = decodeBinary(rawBlockHeader, bytes);
    } catch {
      throw fail({ error: "cannot_parse_bock_header" });
    }
    if (this.chain.store.invalidBlock(hash) !== undefined) throw knownInvalid.error(undefined);
    const pred = this.chain.block(header.predecessor);
    if (pred === undefined) throw unknownAncestor.error(undefined);
    const protocol = this.protocolOf(pred, hash);
    this.checkHeader(pred, header, protocol, fail);
    const ops = this.checkOperations(hash, header, pred, protocol, operations, fail);
    const predecessor = { hash: pred.hash, header: pred.header, context: this.contextOf(pred) };
    const key = toHex(encodeBinary(shellHeader, header));
    const built = this.built.get(key);
    let applied: Applied;
    let waived: readonly WaivedOperation[] = [];
    if (built !== undefined && protocol.sealedFrom(header.protocol_data, built.protocolData)) {
      this.built.delete(key);
      await this.run(fail, () => this.parsing(fail, () => protocol.checkHeader({ chainId: this.chainIdBytes, predecessor, header })));
      applied = built.applied;
      waived = built.waived;
    } else {
      const signatureWaived = this.signatures?.applying(hash);
      const prepared = this.prepareContext === undefined ? predecessor : { ...predecessor, context: await this.prepareContext(pred, predecessor.context, "apply") };
      const env = { chainId: this.chainIdBytes, predecessor: prepared, header, ...(signatureWaived === undefined ? {} : { signatureWaived }) };
      const state = await this.run(fail, () => this.parsing(fail, () => protocol.beginApplication(env)));
      const { receipts, result } = await this.applyAll(state, ops, header, fail);
      if (compareFitness(result.fitness, header.fitness) !== 0) {
        throw fail({ error: "invalid_fitness", expected: header.fitness, found: result.fitness });
      }
      const finished = await this.finish(hash, pred, protocol, header, receipts, result);
      if (finished.context !== header.context) {
        throw inconsistentContextHash.error({ wrong_context_hash: finished.context, expected_context_hash: header.context });
      }
      applied = finished.applied;
    }
    const nextProtocol = applied.info.next_protocol;
    const expectedProto = nextProtocol === protocol.hash ? pred.header.proto : (pred.header.proto + 1) % 256;
    if (header.proto !== expectedProto) throw fail({ error: "invalid_proto_level", expected: expectedProto, found: header.proto });
    return { block: { hash, bytes, operations: operations.map((pass) => [...pass]), ...applied }, waived };
  }

  /**
   * What follows the application (or construction) of a block: the next protocol's activation
   * when the context names one, the context commit, and the block's info; the commit's hash.
   */
  private async finish(
    block: string,
    pred: Block,
    protocol: Protocol,
    shell: ShellHeader,
    receipts: Uint8Array[][],
    result: BlockResult,
  ): Promise<{ applied: Applied; context: string; final: Omit<BlockResult, "metadata"> }> {
    const { nextProtocol, final } = await this.mayActivate(block, protocol, result, shell);
    const committed = commit(final.context, { parents: [b58decode(B58.contextHash, pred.header.context)], time: shell.timestamp, message: final.message });
    const context = b58encode(B58.contextHash, committed.hash);
    const applied: Applied = {
      info: {
        protocol: protocol.hash,
        next_protocol: nextProtocol,
        max_operations_ttl: Math.max(0, Math.min(pred.info.max_operations_ttl + 1, final.maxOperationsTtl)),
        last_allowed_fork_level: final.lastAllowedForkLevel,
        metadata: result.metadata,
        operations_metadata: receipts,
      },
      contextOps: committed.ops,
    };
    return { applied, context, final };
  }

  /**
   * Validates a block and stores it (moving the head when it wins). With `force`, a block found
   * invalid is recorded under `invalid_blocks` before the error is thrown. Resolves to its hash.
   * `options.peer`: the peer it came from, shown in the request.
   */
  inject(bytes: Uint8Array, operations: readonly (readonly Uint8Array[])[], options: { force?: boolean; peer?: string } = {}): Promise<string> {
    let started = 0;
    const done = this.worker.push(this.validation(bytes, options.peer), () => {
      started = performance.now(); // the validation's own time, not the wait in the queue
      return this.validateAndStore(bytes, operations, options.force === true);
    });
    const peer = options.peer;
    if (peer === undefined || !this.log.enabled("info")) return done;
    return done.then((hash) => {
      const count = operations.reduce((sum, pass) => sum + pass.length, 0);
      this.log.info("block_validated", { block_level: this.levelOf(bytes), hash, operations: count, peer, ms: Math.round(performance.now() - started) });
      return hash;
    });
  }

  private async validateAndStore(bytes: Uint8Array, operations: readonly (readonly Uint8Array[])[], force: boolean): Promise<string> {
    let block: NewBlock;
    let waived: readonly WaivedOperation[];
    try {
      ({ block, waived } = await this.validate(bytes, operations));
    } catch (e) {
      if (force && e instanceof TezosError && invalidBlock.is(e.trace[0]!)) {
        const item = e.trace[0] as ReturnType<typeof invalidBlock.create>;
        const level = this.levelOf(bytes);
        if (level !== undefined) await this.chain.markInvalid(item.fields.invalid_block, level, e.toJson());
      }
      throw e;
    }
    if (this.chain.block(block.hash) === undefined) {
      // recorded first: once stored, the block must be valid again with its waived signatures
      if (waived.length > 0) await this.signatures?.record({ hash: block.hash, level: this.levelOf(bytes)! }, waived);
      await this.chain.storeBlock(block);
    }
    return block.hash;
  }

  /** Base58 hash of a block header's bytes. */
  hashOf(bytes: Uint8Array): string {
    return b58encode(B58.blockHash, blockHash(bytes));
  }

  private levelOf(bytes: Uint8Array): number | undefined {
    try {
      return decodeBinary(rawBlockHeader, bytes).level;
    } catch {
      return undefined;
    }
  }

  /**
   * Builds a block on `pred` at `timestamp` with the given protocol data and operations: the
   * shell header it must carry (context hash included) and the receipts.
   */
  preapply(pred: Block, timestamp: number, protocolData: Uint8Array | undefined, operations: readonly (readonly Uint8Array[])[]): Promise<Preapplied> {
    const request: BlockValidatorRequest = { kind: "preapplication", chain_id: this.chain.chainId, level: pred.header.level + 1 };
    return this.worker.push(request, () => this.build(pred, timestamp, protocolData, operations));
  }

  private async build(
    pred: Block,
    timestamp: number,
    protocolData: Uint8Array | undefined,
    operations: readonly (readonly Uint8Array[])[],
  ): Promise<Preapplied> {
    const fail = (error: BlockError) => invalidBlock.error({ invalid_block: pred.hash, ...error });
    const protocol = this.protocolOf(pred, pred.hash);
    const stored = this.contextOf(pred);
    const predContext = this.prepareContext === undefined ? stored : await this.prepareContext(pred, stored, "build");
    const waived = new Map<string, string>();
    const signatureWaived = this.waiving(waived);
    const state = await this.run(fail, () =>
      protocol.beginConstruction({
        chainId: this.chainIdBytes,
        predecessor: { hash: pred.hash, header: pred.header, context: predContext },
        timestamp,
        protocolData,
        ...(signatureWaived === undefined ? {} : { signatureWaived }),
      }),
    );
    const ops = operations.map((pass) => pass.map(shellOperation));
    const { receipts, result } = await this.applyAll(state, ops, undefined, fail);
    const shellNoContext = {
      level: pred.header.level + 1,
      proto: pred.header.proto,
      predecessor: pred.hash,
      timestamp,
      validation_pass: protocol.operationListQuota.length,
      operations_hash: operationsHashOf(ops.map((pass) => pass.map((o) => o.hash))),
      fitness: result.fitness,
    };
    const { applied, context, final } = await this.finish(pred.hash, pred, protocol, { ...shellNoContext, context: pred.header.context }, receipts, result);
    const nextProtocol = applied.info.next_protocol;
    const proto = nextProtocol === protocol.hash ? pred.header.proto : (pred.header.proto + 1) % 256;
    const shell: ShellHeader = { ...shellNoContext, proto, context };
    if (protocolData !== undefined) {
      this.remember(shell, { applied, protocolData: protocolData.slice(), waived: [...waived].map(([hash, source]) => ({ hash, source })) });
    }
    return { shell, receipts, result: { ...final, metadata: result.metadata } };
  }

  /** The building waiver of {@link signatures}, noting in `waived` each operation hash it waives, with its source. */
  private waiving(waived: Map<string, string>): SignatureWaived | undefined {
    const signatures = this.signatures;
    if (signatures === undefined) return undefined;
    return (source, hash) => {
      if (!signatures.building(source, hash)) return false;
      waived.set(hash, source);
      return true;
    };
  }

  /** Forgets every built block (a sandbox revert: what was built on the forgotten blocks is not applied from memory). */
  forgetBuilt(): void {
    this.built.clear();
  }

  /** Keeps a built block for its application, forgetting the oldest beyond {@link BUILT_BLOCKS_KEPT}. */
  private remember(shell: ShellHeader, built: Built): void {
    const key = toHex(encodeBinary(shellHeader, shell));
    this.built.delete(key);
    this.built.set(key, built);
    for (const old of this.built.keys()) {
      if (this.built.size <= BUILT_BLOCKS_KEPT) break;
      this.built.delete(old);
    }
  }

  private get chainIdBytes(): Uint8Array {
    return b58decode(B58.chainId, this.chain.chainId);
  }

  private protocolOf(pred: Block, block: string): Protocol {
    const protocol = this.protocols(pred.info.next_protocol);
    if (protocol === undefined) throw unavailableProtocol.error({ block, missing_protocol: pred.info.next_protocol });
    return protocol;
  }

  private contextOf(block: Block): Context {
    const ctx = checkout(this.chain.store.kv, b58decode(B58.contextHash, block.header.context));
    if (ctx === undefined) throw new Error(`The context of block ${block.hash} is missing from the store`);
    return ctx;
  }

  /** Octez's `check_block_header`. */
  private checkHeader(pred: Block, header: RawBlockHeader, protocol: Protocol, fail: (e: BlockError) => TezosError): void {
    if (header.level !== pred.header.level + 1) throw fail({ error: "invalid_level", expected: pred.header.level + 1, found: header.level });
    if (!(header.timestamp > pred.header.timestamp)) throw fail({ error: "non_increasing_timestamp" });
    if (compareFitness(header.fitness, pred.header.fitness) <= 0) throw fail({ error: "non_increasing_fitness" });
    if (header.validation_pass !== protocol.operationListQuota.length) {
      throw fail({ error: "unexpected_number_of_passes", found: header.validation_pass });
    }
  }

  /** Operations hash, quotas, passes, live branches and replays. */
  private checkOperations(
    hash: string,
    header: RawBlockHeader,
    pred: Block,
    protocol: Protocol,
    operations: readonly (readonly Uint8Array[])[],
    fail: (e: BlockError) => TezosError,
  ): ShellOperation[][] {
    const hashes = operations.map((pass) => pass.map(hashOperation));
    const found = operationsHashOf(hashes);
    if (operations.length !== header.validation_pass || found !== header.operations_hash) {
      throw inconsistentOperationsHash.error({ block: hash, expected: header.operations_hash, found });
    }
    const live = this.liveBlocks(pred);
    const liveOps = this.liveOperations(pred);
    const seen = new Set<string>();
    return operations.map((pass, i) => {
      const quota = protocol.operationListQuota[i]!;
      if (quota.max_op !== undefined && pass.length > quota.max_op) {
        throw fail({ error: "too_many_operations", validation_pass: i + 1, found: pass.length, max: quota.max_op });
      }
      return pass.map((bytes) => {
        const op = shellOperation(bytes);
        if (bytes.length > protocol.maxOperationDataLength) {
          throw fail({ error: "oversized_operation", operation: op.hash, found: bytes.length, max: protocol.maxOperationDataLength });
        }
        let allowed: readonly number[];
        try {
          allowed = protocol.acceptablePasses(op);
        } catch (e) {
          if (e instanceof DecodeError) throw fail({ error: "cannot_parse_operation", operation: op.hash });
          throw e;
        }
        if (!allowed.includes(i)) throw fail({ error: "invalid_pass", operation: op.hash, pass: i, allowed_pass: [...allowed] });
        if (!live.has(op.branch)) throw fail({ error: "outdated_operation", operation: op.hash, originating_block: op.branch });
        if (liveOps.has(op.hash) || seen.has(op.hash)) throw fail({ error: "replayed_operation", operation: op.hash });
        seen.add(op.hash);
        return op;
      });
    });
  }

  /** Hashes of the blocks an operation built on `pred` may name as its branch. */
  liveBlocks(pred: Block): Set<string> {
    const out = new Set<string>();
    let cur: Block | undefined = pred;
    for (let i = 0; i <= pred.info.max_operations_ttl && cur !== undefined; i++) {
      out.add(cur.hash);
      if (cur.hash === this.chain.genesis.hash) break;
      cur = this.chain.block(cur.header.predecessor);
    }
    return out;
  }

  /** Hashes of the operations included in the live blocks of `pred`. */
  liveOperations(pred: Block): Set<string> {
    const out = new Set<string>();
    for (const h of this.liveBlocks(pred)) for (const pass of this.chain.operationHashes(h)) for (const o of pass) out.add(o);
    return out;
  }

  private async applyAll(
    state: ValidationState,
    ops: readonly (readonly ShellOperation[])[],
    header: ShellHeader | undefined,
    fail: (e: BlockError) => TezosError,
  ): Promise<{ receipts: Uint8Array[][]; result: BlockResult }> {
    // the signatures of the whole block at once (WebCrypto verifies them off the main thread)
    if (state.prepare !== undefined) await Promise.all(ops.flat().map((op) => state.prepare!(op)));
    const receipts: Uint8Array[][] = [];
    for (const pass of ops) {
      const out: Uint8Array[] = [];
      for (const op of pass) out.push(await this.run(fail, () => state.applyOperation(op)));
      receipts.push(out);
    }
    const result = await this.run(fail, () => state.finalize(header));
    return { receipts, result };
  }

  /** When the context names a new protocol, runs its `init` (Octez's protocol activation). */
  private async mayActivate(
    block: string,
    protocol: Protocol,
    result: BlockResult,
    shell: ShellHeader,
  ): Promise<{ nextProtocol: string; final: Omit<BlockResult, "metadata"> }> {
    const raw = result.context.get(PROTOCOL_KEY);
    const nextProtocol = raw === undefined ? protocol.hash : b58encode(B58.protocolHash, raw);
    if (nextProtocol === protocol.hash) return { nextProtocol, final: result };
    const next = this.protocols(nextProtocol);
    if (next === undefined) throw unavailableProtocol.error({ block, missing_protocol: nextProtocol });
    const final = await next.init({ chainId: this.chainIdBytes, context: result.context, shell });
    return { nextProtocol, final };
  }

  /** Runs `f`, reading an undecodable header as Octez's `cannot_parse_bock_header`. */
  private async parsing<T>(fail: (e: BlockError) => TezosError, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof DecodeError) throw fail({ error: "cannot_parse_bock_header" });
      throw e;
    }
  }

  private async run<T>(fail: (e: BlockError) => TezosError, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof TezosError) throw fail({ error: "economic_protocol_error", trace: e.toJson() });
      throw e;
    }
  }
}

/** Raw header bytes of a shell header and protocol data. */
export function headerBytes(shell: ShellHeader, protocolData: Uint8Array): Uint8Array {
  return encodeBinary(rawBlockHeader, { ...shell, protocol_data: protocolData });
}
