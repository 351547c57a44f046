/**
 * `GET {B}/helpers/complete/<prefix>`: the Base58Check strings the node knows that start with
 * `prefix` — block hashes, operation hashes, protocol hashes, and (from the block's next
 * protocol) contract addresses.
 *
 * Octez's rule (`lib_crypto/base58.ml`, `complete`): a prefix is matched against each kind by its
 * encoded prefix (`B`, `o`, `P`, `tz1`, `tz2`, `tz3`, `KT1`); the raw bytes it fixes are found by
 * decoding it padded to the kind's full length with the first and the last letter of the
 * alphabet and keeping their common leading bytes; the kind's resolver lists the stored values
 * starting with those bytes, and only the ones whose Base58Check text starts with the prefix are
 * kept. There is no minimum length: `B` lists every known block. A prefix longer than a full
 * string, or with a letter outside the alphabet, completes to nothing.
 *
 * Octez v12.4 registers no resolver at all (the block and protocol resolvers left with the
 * legacy store in v12.0, the protocols' contract resolvers in 2019), so there the service always
 * answers `[]`. This node keeps the resolvers of the earlier releases (blocks, protocols) and adds
 * operations (those of `{B}` and its predecessors) and contracts (those of `{B}`'s context), the
 * kinds the service's description promises.
 * @module
 */
import { B58, b58encode, type Base58Kind } from "../../encoding/base58.ts";
import { string } from "../../encoding/bytes.ts";
import { list } from "../../encoding/list.ts";
import { key, prefixRange, Table } from "../../store/tables.ts";
import { stringArg, likeArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { service } from "../service.ts";
import type { BlockCtx } from "./block-context.ts";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Bytes of a Base58 text (no checksum check), or `undefined` if a letter is outside the alphabet. */
function rawDecode(text: string): Uint8Array | undefined {
  let n = 0n;
  for (const ch of text) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) return undefined;
    n = n * 58n + BigInt(d);
  }
  let zeros = 0;
  while (zeros < text.length && text[zeros] === "1") zeros++;
  const out: number[] = [];
  for (; n > 0n; n >>= 8n) out.push(Number(n & 0xffn));
  out.reverse();
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...out]);
}

/** Octez's encoded prefix and full length of a kind: the letters every string of the kind starts with. */
function encodedPrefix(kind: Base58Kind): { prefix: string; length: number } {
  const low = b58encode(kind, new Uint8Array(kind.size));
  const high = b58encode(kind, new Uint8Array(kind.size).fill(0xff));
  let i = 0;
  while (i < low.length && low[i] === high[i]) i++;
  return { prefix: low.slice(0, i), length: low.length };
}

/**
 * The payload bytes a prefix fixes for `kind` (Octez's `partial_decode`, without the version
 * bytes and cut to the payload size), or `undefined` when the prefix cannot be one of the kind.
 */
export function partialPayload(kind: Base58Kind, text: string): Uint8Array | undefined {
  const { prefix, length } = encodedPrefix(kind);
  if (!text.startsWith(prefix) || text.length > length) return undefined;
  const min = rawDecode(text + ALPHABET[0]!.repeat(length - text.length));
  const max = rawDecode(text + ALPHABET[ALPHABET.length - 1]!.repeat(length - text.length));
  if (min === undefined || max === undefined) return undefined;
  let common = 0;
  while (common < min.length && common < max.length && min[common] === max[common]) common++;
  const ignored = kind.prefix.length;
  if (common <= ignored) return new Uint8Array(0);
  for (let i = 0; i < ignored; i++) if (min[i] !== kind.prefix[i]) return undefined;
  return min.slice(ignored, Math.min(common, ignored + kind.size));
}

/** A source of completions for one Base58Check kind. */
export interface PrefixResolver {
  readonly kind: Base58Kind;
  /** Candidates whose payload starts with `payload` (more may be given: the prefix filters them). */
  candidates(ctx: BlockCtx, payload: Uint8Array): Iterable<string>;
}

/** Every stored block (side branches included) whose hash starts with the payload: a key range of the header table. */
export const blockResolver: PrefixResolver = {
  kind: B58.blockHash,
  *candidates(ctx, payload) {
    for (const [k] of ctx.chain.store.kv.range(prefixRange(key(Table.blockHeader, payload)))) {
      if (k.length === 1 + B58.blockHash.size) yield b58encode(B58.blockHash, k.subarray(1));
    }
  },
};

/** The operations of `{B}` and of its predecessors down to the genesis block. */
export const operationResolver: PrefixResolver = {
  kind: B58.operationHash,
  *candidates(ctx) {
    const { chain } = ctx;
    let block = ctx.block;
    for (;;) {
      for (const pass of chain.operationHashes(block.hash)) yield* pass;
      if (block.hash === chain.genesis.hash) return;
      const pred = chain.block(block.header.predecessor);
      if (pred === undefined) return;
      block = pred;
    }
  },
};

/** The protocols the node knows: embedded and injected. */
export const protocolResolver: PrefixResolver = {
  kind: B58.protocolHash,
  candidates: (ctx) => ctx.shell.protocols.list(),
};

/** The shell's resolvers, in Octez's order (blocks, operations, protocols). */
export const SHELL_RESOLVERS: readonly PrefixResolver[] = Object.freeze([blockResolver, operationResolver, protocolResolver]);

/**
 * The completions of `prefix` at block `ctx` by `resolvers`: for each kind the prefix can belong
 * to, the candidates whose text starts with it, sorted and without duplicates.
 */
export function complete(ctx: BlockCtx, prefix: string, resolvers: readonly PrefixResolver[]): string[] {
  const out: string[] = [];
  for (const r of resolvers) {
    const payload = partialPayload(r.kind, prefix);
    if (payload === undefined) continue;
    const found = new Set<string>();
    for (const c of r.candidates(ctx, payload)) if (c.startsWith(prefix)) found.add(c);
    out.push(...[...found].sort());
  }
  return out;
}

/** `prefix`: any text (Octez's argument accepts every string). */
const prefixArg = likeArg(stringArg, "prefix");

/**
 * The completion service, with the shell's resolvers followed by `protocolResolvers` (those of
 * the block's next protocol, Octez's `complete_b58prefix`).
 */
export function completeServices(protocolResolvers: readonly PrefixResolver[] = []): Directory<BlockCtx> {
  const resolvers = [...SHELL_RESOLVERS, ...protocolResolvers];
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["helpers", "complete", prefixArg],
      description:
        "Try to complete a prefix of a Base58Check-encoded data. This RPC is actually able to complete hashes of block, operations, public_keys and contracts.",
      output: list(string),
      handler: ({ ctx, params: [prefix] }) => complete(ctx, prefix, resolvers),
    }),
  );
}
