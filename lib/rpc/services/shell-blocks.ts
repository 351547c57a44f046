/**
 * Block services of the shell (Octez `block_directory.ml`): those every block has whatever its
 * protocol (operation hashes, live blocks, protocols, the raw context, the early layout's
 * `/header/shell/<field>`), and those that read the block's stored receipts with its protocol
 * (`/metadata`, `/operations`, the metadata hashes, the full block `GET {B}`), whose shell part
 * takes the limits of the block's next protocol.
 * @module
 */
import { B58, b58decode, b58encode } from "../../encoding/base58.ts";
import { shellHeader, type ShellHeader } from "../../encoding/block-header.ts";
import { bytes } from "../../encoding/bytes.ts";
import { DecodeError, decodeBinary, type Json, type Reader, type Writer } from "../../encoding/codec.ts";
import { constant } from "../../encoding/conv.ts";
import { makeCodec, type Codec } from "../../encoding/core.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { fitness } from "../../encoding/fitness.ts";
import {
  blockHash,
  blockMetadataHash,
  chainId,
  contextHash,
  operationHash,
  operationListListHash as operationListListHashCodec,
  operationMetadataHash,
  operationMetadataListListHash,
  protocolHash,
} from "../../encoding/hashes.ts";
import { fromHex, toHex } from "../../encoding/hex.ts";
import { int31, int32, uint8 } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { mergeObjs, obj, opt, req } from "../../encoding/object.ts";
import { timestamp } from "../../encoding/time.ts";
import { testChainStatus, type TestChainStatus } from "../../encoding/hangzhou/receipts/block-metadata.ts";
import { operationListHash, operationListListHash } from "../../crypto/hashes.ts";
import type { Block } from "../../shell/chain.ts";
import { shellOperation } from "../../shell/operations.ts";
import { contextNotFound, metadataNotFound } from "../../shell/store-errors.ts";
import { blockMetadataHash as metadataHashOf, operationsMetadataHashes } from "../../store/block-store.ts";
import { checkout, type Context, type RawContext } from "../../store/context/mod.ts";
import { makeArg, uintArg, type Arg } from "../arg.ts";
import { parseOcamlInt } from "../ocaml.ts";
import { Directory } from "../directory.ts";
import { optional, query } from "../query.ts";
import { NotFound, service, tail } from "../service.ts";
import type { BlockCtx } from "./block-context.ts";
import type { BlockOperationRpc, BlockProtocolRpc, ProtocolLimits } from "./block-protocols.ts";

// ---------------------------------------------------------------------------------------------
// Arguments

function offsetArg(name: string, descr: string, what: string): Arg<number> {
  return makeArg({
    name,
    descr,
    parse(text) {
      const v = parseOcamlInt(text, 63);
      if (v === undefined || v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new Error(`Invalid ${what} (${text})`);
      }
      return Number(v);
    },
    print: (v) => String(v),
  });
}

/** `list_offset`: the index of a validation pass. */
export const listOffsetArg: Arg<number> = offsetArg("list_offset", "Index `n` of the requested validation pass.", "list offset");
/** `operation_offset`: the index of an operation in its validation pass. */
export const operationOffsetArg: Arg<number> = offsetArg(
  "operation_offset",
  "Index `m` of the requested operation in its validation pass.",
  "operation offset",
);
/** `context_path`: one segment of a path inside the context. */
export const contextPathArg: Arg<string> = makeArg({ name: "context_path", descr: "A path inside the context", parse: (t) => t, print: (t) => t });

// ---------------------------------------------------------------------------------------------
// The block's context

const contexts = new WeakMap<Block, Context>();

/** The context of a block (its `context` hash checked out of the chain's store), cached per block. */
export function blockContext({ chain, block }: BlockCtx): Context {
  let c = contexts.get(block);
  if (c === undefined) {
    c = checkout(chain.store.kv, b58decode(B58.contextHash, block.header.context));
    // Octez's Store.Block.context: a 500 naming the block and its context (collected below the savepoint).
    if (c === undefined) throw contextNotFound(block.hash, block.header.context);
    contexts.set(block, c);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Raw context (`/context/raw/bytes`)

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

function writeRaw(out: Writer, v: RawContext): void {
  switch (v.kind) {
    case "key":
      out.u8(0);
      out.u32(v.value.length);
      out.raw(v.value);
      return;
    case "dir": {
      out.u8(1);
      const at = out.reserve(4);
      const start = out.length;
      for (const [name, child] of v.entries) {
        const n = utf8.encode(name);
        out.u32(n.length);
        out.raw(n);
        writeRaw(out, child);
      }
      out.patchU32(at, out.length - start);
      return;
    }
    case "cut":
      out.u8(2);
  }
}

function readRaw(r: Reader): RawContext {
  const tag = r.u8();
  if (tag === 0) return { kind: "key", value: r.take(r.u32()) };
  if (tag === 2) return { kind: "cut" };
  if (tag !== 1) throw new DecodeError(`Unknown raw_context tag ${tag}`);
  const entries: [string, RawContext][] = [];
  r.within(r.u32(), () => {
    while (r.remaining > 0) {
      const name = fromUtf8.decode(r.take(r.u32()));
      entries.push([name, readRaw(r)]);
    }
  });
  return { kind: "dir", entries };
}

function rawToJson(v: RawContext): Json {
  if (v.kind === "key") return toHex(v.value);
  if (v.kind === "cut") return null;
  const o: { [k: string]: Json } = {};
  for (const [k, c] of v.entries) o[k] = rawToJson(c);
  return o;
}

function rawFromJson(j: Json): RawContext {
  if (j === null) return { kind: "cut" };
  if (typeof j === "string") return { kind: "key", value: fromHex(j) };
  if (typeof j === "object" && !Array.isArray(j)) return { kind: "dir", entries: Object.entries(j).map(([k, v]) => [k, rawFromJson(v)] as const) };
  throw new DecodeError("raw_context: expected a hex string, an object or null");
}

/**
 * Octez's `raw_context` (`block_services.ml`): a leaf is its bytes (hex in JSON; tag 0 and
 * length-prefixed bytes in binary), a directory an object of its entries (tag 1 and a
 * length-prefixed list of name/value pairs), a part cut by the depth `null` (tag 2).
 */
export const rawContextCodec: Codec<RawContext> = makeCodec<RawContext>({
  title: "raw_context",
  size: { kind: "dynamic" },
  desc: { t: "leaf", layout: { kind: "Ref", name: "raw_context" } },
  toJson: rawToJson,
  fromJson: rawFromJson,
  write: writeRaw,
  read: readRaw,
  schema: () => ({
    oneOf: [
      { title: "Key", type: "string", pattern: "^([a-zA-Z0-9][a-zA-Z0-9])*$" },
      { title: "Dir", type: "object", additionalProperties: { $ref: "#/definitions/raw_context" } },
      { title: "Cut", type: "null" },
    ] as Json[],
  }),
});

// ---------------------------------------------------------------------------------------------
// Shell services of every block

type ShellField = { [K in keyof ShellHeader]: { path: string; key: K; codec: Codec<ShellHeader[K]> } }[keyof ShellHeader];

/** The early layout's `/header/shell/<field>` paths and the header fields they show. */
const SHELL_FIELDS: readonly ShellField[] = [
  { path: "level", key: "level", codec: int32 },
  { path: "proto_level", key: "proto", codec: uint8 },
  { path: "predecessor", key: "predecessor", codec: blockHash },
  { path: "timestamp", key: "timestamp", codec: timestamp },
  { path: "validation_passes", key: "validation_pass", codec: uint8 },
  { path: "operations_hash", key: "operations_hash", codec: operationListListHashCodec },
  { path: "fitness", key: "fitness", codec: fitness },
  { path: "context_hash", key: "context", codec: contextHash },
];

function bytesOrder(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function passAt<T>(lists: readonly (readonly T[])[], i: number): readonly T[] {
  const pass = lists[i];
  if (pass === undefined) throw new NotFound();
  return pass;
}

function itemAt<T>(items: readonly T[], j: number): T {
  const v = items[j];
  if (v === undefined) throw new NotFound();
  return v;
}

/** `{protocol, next_protocol}` of `/protocols`. */
const protocolsCodec = obj(req("protocol", protocolHash), req("next_protocol", protocolHash));

/**
 * The shell's services below `{B}` that do not depend on the block's protocols:
 * `/operation_hashes[/<i>[/<j>]]`, `/live_blocks`, `/protocols`, `/context/raw/bytes[/<path>]`
 * (query `depth`) and the early layout's `/header/shell/<field>`.
 */
export function shellBlockExtras(): Directory<BlockCtx> {
  const dir = new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["operation_hashes"],
      description: "The hashes of all the operations included in the block.",
      output: list(list(operationHash)),
      handler: ({ ctx }) => ctx.chain.operationHashes(ctx.block.hash),
    }),
    service({
      method: "GET",
      path: ["operation_hashes", listOffsetArg],
      description: "All the operations included in `n-th` validation pass of the block.",
      output: list(operationHash),
      handler: ({ ctx, params: [i] }) => passAt(ctx.chain.operationHashes(ctx.block.hash), i) as string[],
    }),
    service({
      method: "GET",
      path: ["operation_hashes", listOffsetArg, operationOffsetArg],
      description: "The hash of then `m-th` operation in the `n-th` validation pass of the block.",
      output: operationHash,
      handler: ({ ctx, params: [i, j] }) => itemAt(passAt(ctx.chain.operationHashes(ctx.block.hash), i), j),
    }),
    service({
      method: "GET",
      path: ["live_blocks"],
      description: "List the ancestors of the given block which, if referred to as the branch in an operation header, are recent enough for that operation to be included in the current block.",
      output: list(blockHash),
      handler: ({ ctx }) =>
        [...ctx.shell.validator.liveBlocks(ctx.block)]
          .map((h) => [h, b58decode(B58.blockHash, h)] as const)
          .sort((a, b) => bytesOrder(a[1], b[1]))
          .map(([h]) => h),
    }),
    service({
      method: "GET",
      path: ["protocols"],
      description: "Current and next protocol.",
      output: protocolsCodec,
      handler: ({ ctx }) => ({ protocol: ctx.block.info.protocol, next_protocol: ctx.block.info.next_protocol }),
    }),
    service({
      method: "GET",
      path: ["context", "raw", "bytes", tail(contextPathArg)],
      description: "Returns the raw context.",
      query: query({ depth: optional(uintArg) }),
      output: rawContextCodec,
      optional: true,
      handler: ({ ctx, params: [path], query: q }) => blockContext(ctx).list(path, q.depth === undefined ? {} : { depth: q.depth }),
    }),
  );
  for (const f of SHELL_FIELDS) {
    dir.register(
      service({
        method: "GET",
        path: ["header", "shell", f.path],
        description: `The block header's \`${f.key}\` (early layout).`,
        output: f.codec as Codec<unknown>,
        handler: ({ ctx }) => ctx.block.header[f.key],
      }),
    );
  }
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Services that read the block's receipts with its protocol

const NO_LIMITS: ProtocolLimits = { maxOperationDataLength: 0, maxBlockHeaderLength: 0, operationListQuota: [] };
const NOT_RUNNING: TestChainStatus = Object.freeze({ status: "not_running" }) as TestChainStatus;

const quotaCodec = obj(req("max_size", int31), opt("max_op", int31));

/** The shell's part of the metadata of a block of `protocol` followed by `next`. */
function shellMetadataCodec(protocol: string, next: string) {
  return obj(
    req("protocol", constant(protocol)),
    req("next_protocol", constant(next)),
    req("test_chain_status", testChainStatus),
    req("max_operations_ttl", int31),
    req("max_operation_data_length", int31),
    req("max_block_header_length", int31),
    req("max_operation_list_length", dynamicSize(list(quotaCodec))),
  );
}

/** A block's operation when its protocol shows none (never stored: such protocols take no operations). */
const rawOperationOf = (protocol: string): BlockOperationRpc => ({
  codec: obj(
    req("protocol", constant(protocol)),
    req("chain_id", chainId),
    req("hash", operationHash),
    req("branch", blockHash),
    req("data", bytes),
  ),
  build: (op) => ({ protocol, chain_id: op.chainId, hash: op.hash, branch: op.branch, data: op.proto }),
});

/**
 * The services that read a block's receipts with its `protocol`, the limits coming from `next`:
 * `/metadata` and the early layout's `/metadata/<field>`, `/metadata_hash`,
 * `/operations[/<i>[/<j>]]`, `/operations_metadata_hash`, `/operation_metadata_hashes[/<i>[/<j>]]`
 * and the full block `GET {B}`. Header fields of the full block use `protocol`'s header codec.
 */
export function blockReceiptServices(protocol: BlockProtocolRpc, next: BlockProtocolRpc): Directory<BlockCtx> {
  const limits = next.limits ?? NO_LIMITS;
  const protoMeta: Codec<any> = protocol.metadata ?? obj();
  const metadataCodec = mergeObjs(shellMetadataCodec(protocol.hash, next.hash), protoMeta);
  const op = protocol.operation ?? rawOperationOf(protocol.hash);
  const quota = limits.operationListQuota.map((q) => (q.max_op === undefined ? { max_size: q.max_size } : { max_size: q.max_size, max_op: q.max_op }));

  const protoMetas = new WeakMap<Block, object>();
  const protocolMetadata = (b: Block): object => {
    let m = protoMetas.get(b);
    if (m === undefined) {
      const bytes = b.info.metadata;
      if (bytes === undefined) throw metadataNotFound(b.hash);
      m = protocol.metadata === undefined ? {} : (decodeBinary(protocol.metadata, bytes) as object);
      protoMetas.set(b, m);
    }
    return m;
  };
  const metas = new WeakMap<Block, object>();
  const metadataOf = (b: Block): object => {
    let m = metas.get(b);
    if (m === undefined) {
      m = {
        protocol: protocol.hash,
        next_protocol: next.hash,
        test_chain_status: NOT_RUNNING,
        max_operations_ttl: b.info.max_operations_ttl,
        max_operation_data_length: limits.maxOperationDataLength,
        max_block_header_length: limits.maxBlockHeaderLength,
        max_operation_list_length: quota,
        ...protocolMetadata(b),
      };
      metas.set(b, m);
    }
    return m;
  };
  const opsCache = new WeakMap<Block, unknown[][]>();
  const operationsOf = ({ chain, block }: BlockCtx): unknown[][] => {
    let ops = opsCache.get(block);
    if (ops === undefined) {
      const raw = chain.store.operations(block.hash) ?? [];
      const receipts = block.info.operations_metadata ?? [];
      // As Octez: receipts are shown only when there is one per operation (none once pruned).
      const withReceipts = block.info.operations_metadata !== undefined && receipts.length === raw.length && raw.every((pass, i) => receipts[i]!.length === pass.length);
      ops = raw.map((pass, i) =>
        pass.map((bytes, j) => {
          const s = shellOperation(bytes);
          return op.build({ chainId: chain.chainId, hash: s.hash, branch: s.branch, proto: s.proto, receipt: withReceipts ? receipts[i]![j] : undefined });
        }),
      );
      opsCache.set(block, ops);
    }
    return ops;
  };

  const dir = new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["metadata"],
      description: "All the metadata associated to the block.",
      output: metadataCodec,
      cache: true,
      handler: ({ ctx }) => metadataOf(ctx.block) as never,
    }),
    service({
      method: "GET",
      path: ["metadata", "protocol_data"],
      description: "The version-specific part of the block metadata (early layout).",
      output: protoMeta,
      handler: ({ ctx }) => protocolMetadata(ctx.block),
    }),
    service({
      method: "GET",
      path: ["metadata", "protocol_hash"],
      description: "The protocol used to bake this block (early layout).",
      output: protocolHash,
      handler: () => protocol.hash,
    }),
    service({
      method: "GET",
      path: ["metadata", "next_protocol_hash"],
      description: "The protocol to bake the next block (early layout).",
      output: protocolHash,
      handler: () => next.hash,
    }),
    service({
      method: "GET",
      path: ["metadata", "max_operations_ttl"],
      description: "How many blocks back an operation's branch may be (early layout).",
      output: int31,
      handler: ({ ctx }) => ctx.block.info.max_operations_ttl,
    }),
    service({
      method: "GET",
      path: ["metadata", "max_operation_data_length"],
      description: "The largest operation the next block may contain (early layout).",
      output: int31,
      handler: () => limits.maxOperationDataLength,
    }),
    service({
      method: "GET",
      path: ["metadata", "max_block_header_length"],
      description: "The largest header the next block may have (early layout).",
      output: int31,
      handler: () => limits.maxBlockHeaderLength,
    }),
    service({
      method: "GET",
      path: ["metadata", "operation_list_quota"],
      description: "The size limits of each validation pass of the next block (early layout).",
      output: list(quotaCodec),
      handler: () => quota,
    }),
    service({
      method: "GET",
      path: ["metadata", "test_chain_status"],
      description: "The status of the test chain (early layout).",
      output: testChainStatus,
      handler: () => NOT_RUNNING,
    }),
    service({
      method: "GET",
      path: ["operations"],
      description: "All the operations included in the block.",
      output: list(dynamicSize(list(op.codec))),
      cache: true,
      handler: ({ ctx }) => operationsOf(ctx),
    }),
    service({
      method: "GET",
      path: ["operations", listOffsetArg],
      description: "All the operations included in `n-th` validation pass of the block.",
      output: list(op.codec),
      handler: ({ ctx, params: [i] }) => passAt(operationsOf(ctx), i) as unknown[],
    }),
    service({
      method: "GET",
      path: ["operations", listOffsetArg, operationOffsetArg],
      description: "The `m-th` operation in the `n-th` validation pass of the block.",
      output: op.codec,
      handler: ({ ctx, params: [i, j] }) => itemAt(passAt(operationsOf(ctx), i), j),
    }),
  );

  const header = mergeObjs(shellHeader, protocol.headerData);
  const infos = new WeakMap<Block, object>();
  dir.register(
    service({
      method: "GET",
      path: [],
      description: "All the information about a block. The associated metadata may not be present depending on the history mode and block's distance from the head.",
      output: obj(
        req("protocol", constant(protocol.hash)),
        req("chain_id", chainId),
        req("hash", blockHash),
        req("header", dynamicSize(header)),
        opt("metadata", dynamicSize(metadataCodec)),
        req("operations", list(dynamicSize(list(op.codec)))),
      ),
      cache: true,
      handler: ({ ctx }) => {
        let info = infos.get(ctx.block);
        if (info === undefined) {
          const { protocol_data, ...shell } = ctx.block.header;
          info = {
            protocol: protocol.hash,
            chain_id: ctx.chain.chainId,
            hash: ctx.block.hash,
            header: { ...shell, ...(decodeBinary(protocol.headerData, protocol_data) as object) },
            // Below the savepoint the metadata is pruned: Octez leaves the field out.
            ...(ctx.block.info.metadata === undefined ? {} : { metadata: metadataOf(ctx.block) }),
            operations: operationsOf(ctx),
          };
          infos.set(ctx.block, info);
        }
        return info as never;
      },
    }),
  );

  if ((protocol.environmentVersion ?? 0) >= 1) {
    const opHashes = (b: Block): string[][] =>
      operationsMetadataHashes(b.info).map((pass) => pass.map((h) => b58encode(B58.operationMetadataHash, h)));
    dir.register(
      service({
        method: "GET",
        path: ["metadata_hash"],
        description: "Hash of the metadata associated to the block. This is only set on blocks starting from environment V1.",
        output: blockMetadataHash,
        handler: ({ ctx }) => b58encode(B58.blockMetadataHash, metadataHashOf(ctx.block.info)),
      }),
      service({
        method: "GET",
        path: ["operations_metadata_hash"],
        description: "The root hash of the operations metadata from the block. This is only set on blocks starting from environment V1.",
        output: operationMetadataListListHash,
        handler: ({ ctx }) => {
          const lists = operationsMetadataHashes(ctx.block.info).map((pass) => operationListHash(pass));
          return b58encode(B58.operationMetadataListListHash, operationListListHash(lists));
        },
      }),
      service({
        method: "GET",
        path: ["operation_metadata_hashes"],
        description: "The hashes of all the operation metadata included in the block. This is only set on blocks starting from environment V1.",
        output: list(list(operationMetadataHash)),
        handler: ({ ctx }) => opHashes(ctx.block),
      }),
      service({
        method: "GET",
        path: ["operation_metadata_hashes", listOffsetArg],
        description: "All the operation metadata included in `n-th` validation pass of the block. This is only set on blocks starting from environment V1.",
        output: list(operationMetadataHash),
        handler: ({ ctx, params: [i] }) => passAt(opHashes(ctx.block), i) as string[],
      }),
      service({
        method: "GET",
        path: ["operation_metadata_hashes", listOffsetArg, operationOffsetArg],
        description: "The hash of then `m-th` operation metadata in the `n-th` validation pass of the block. This is only set on blocks starting from environment V1.",
        output: operationMetadataHash,
        handler: ({ ctx, params: [i, j] }) => itemAt(passAt(opHashes(ctx.block), i), j),
      }),
    );
  }
  return dir;
}
