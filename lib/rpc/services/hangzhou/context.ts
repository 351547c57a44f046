/**
 * What Hangzhou's read services share: the protocol context of the block they run at (Octez's
 * `Services_registration.rpc_init`: the block's context prepared with the block's level, its
 * timestamp as both timestamp and predecessor timestamp, and its fitness), the path arguments of
 * Hangzhou's services, and the list order of Octez's storage listings.
 * @module
 */
import { WorkBudget } from "../../../errors/budget.ts";
import { formatPublicKeyHash, parsePublicKeyHash } from "../../../crypto/keys.ts";
import type { Codec } from "../../../encoding/core.ts";
import { conv } from "../../../encoding/conv.ts";
import { contractIdBytes } from "../../../encoding/keys.ts";
import { option } from "../../../encoding/union.ts";
import { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import type { Block } from "../../../shell/chain.ts";
import { makeArg, rememberParses, type Arg } from "../../arg.ts";
import { ocamlQuote, parseOcamlInt } from "../../ocaml.ts";
import type { BlockCtx } from "../block-context.ts";
import { blockContext } from "../shell-blocks.ts";

/** The protocol fitness counter of a shell fitness (`Fitness_repr.to_int64`): `[01, n]` → n, else 0. */
export function protocolFitness(fitness: readonly Uint8Array[]): bigint {
  if (fitness.length === 2 && fitness[0]!.length === 1 && fitness[0]![0] === 1 && fitness[1]!.length === 8) {
    return new DataView(fitness[1]!.buffer, fitness[1]!.byteOffset, 8).getBigInt64(0);
  }
  return 0n;
}

const prepared = new WeakMap<Block, ProtoContext>();

/**
 * The protocol context the services of block `B` read (Octez `rpc_init`): B's context at B's
 * level, with B's timestamp as timestamp and predecessor timestamp. Shared by the requests on
 * one block: services only read it.
 */
export function protoContextOf(ctx: BlockCtx): ProtoContext {
  let pc = prepared.get(ctx.block);
  if (pc === undefined) {
    const h = ctx.block.header;
    pc = ProtoContext.prepare(blockContext(ctx), {
      level: h.level,
      predecessorTimestamp: h.timestamp,
      timestamp: h.timestamp,
      fitness: protocolFitness(h.fitness),
    });
    prepared.set(ctx.block, pc);
  }
  return pc;
}

/**
 * The order of Octez's storage listings (`keys`, `elements`, `bindings`): they fold over the
 * context in key order and cons each item, so they come out in reverse key order.
 */
export function octezListOrder<T>(contextOrder: readonly T[]): T[] {
  return [...contextOrder].reverse();
}

/** `pkh`: a public key hash (`tz1`, `tz2`, `tz3`), in its canonical text. */
export const pkhArg: Arg<string> = makeArg({
  name: "pkh",
  descr: "A Secp256k1 of a Ed25519 public key hash (Base58Check-encoded)",
  parse: rememberParses((text) => {
    try {
      return formatPublicKeyHash(parsePublicKeyHash(text));
    } catch {
      throw new Error(`failed to decode Base58Check-encoded data (Signature.Public_key_hash): ${ocamlQuote(text)}`);
    }
  }),
  print: (v) => v,
});

/** `contract_id`: an implicit (`tz…`) or originated (`KT1…`) contract. */
export const contractArg: Arg<string> = makeArg({
  name: "contract_id",
  descr: "A contract identifier encoded in b58check.",
  parse: rememberParses((text) => {
    if (contractIdBytes(text) === undefined) throw new Error("Cannot parse contract id");
    return text;
  }),
  print: (v) => v,
});

function int32Arg(name: string, descr: string, message: string): Arg<number> {
  return makeArg({
    name,
    descr,
    parse(text) {
      // OCaml's Int32.of_string_opt: decimal, 0x/0o/0b, underscores, wrapping forbidden.
      const v = parseOcamlInt(text, 32);
      if (v === undefined) throw new Error(message);
      return Number(v);
    },
    print: (v) => String(v),
  });
}

/** `block_level`: a raw level (`Raw_level.rpc_arg`). */
export const levelArg: Arg<number> = int32Arg("block_level", "A level integer", "Cannot parse level");
/** `block_cycle`: a cycle (`Cycle.rpc_arg`). */
export const cycleArg: Arg<number> = int32Arg("block_cycle", "A cycle integer", "Cannot parse cycle");

/** data-encoding's `option` with `null` for none (so that an optional service can answer `null` rather than 404). */
export function nullable<T>(codec: Codec<T>): Codec<T | null> {
  return conv<T | null, T | undefined>(
    (v) => (v === null ? undefined : v),
    (v) => (v === undefined ? null : v),
    option(codec),
  );
}

/** A copy of `{B}`'s protocol context for one RPC call, under the call's work budget. */
export function budgetedContext(ctx: BlockCtx): ProtoContext {
  const pc = protoContextOf(ctx).clone();
  pc.budget = workBudget(ctx);
  return pc;
}

/** The work budget of one RPC call on `{B}`. */
export function workBudget(ctx: BlockCtx): WorkBudget {
  return new WorkBudget(ctx.shell.workBudgetMs);
}
