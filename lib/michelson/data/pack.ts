/**
 * `PACK`/`UNPACK` and script expression hashes (Octez `pack_data`, `Script_interpreter_defs.unpack`,
 * `hash_data`): a value packs as 0x05 then the binary Micheline of its Optimized_legacy form; its
 * `expr…` hash is the Base58Check of the BLAKE2b-256 of the packed bytes.
 * @module
 */
import { encodeMicheline, decodeMicheline, type Micheline } from "../../encoding/micheline.ts";
import { B58, b58encode } from "../../encoding/base58.ts";
import { blake2b256 } from "../../crypto/blake2b.ts";
import type { GasMeter, ScriptContext } from "../context.ts";
import type { Ty } from "../ty.ts";
import type { Some, Value } from "../value.ts";
import * as SC from "../gas/script.ts";
import * as IN from "../gas/interpreter.ts";
import { unparseData, type UnparseDataOptions, type UnparsingMode } from "./unparse-data.ts";
import { parseData } from "./parse-data.ts";

/** 0x05 then the binary form of `node`, charging Octez's `pack_node` costs to `gas`. */
export function packNode(node: Micheline, gas?: GasMeter): Uint8Array {
  gas?.consume(SC.stripLocationsCost(node));
  const bytes = encodeMicheline(node);
  gas?.consume(SC.serializedCost(bytes));
  const out = new Uint8Array(bytes.length + 1);
  out[0] = 0x05;
  out.set(bytes, 1);
  gas?.consume(SC.serializedCost(out));
  return out;
}

/**
 * The packed bytes of `v` of type `t` (`PACK`): 0x05 ‖ binary Micheline of the Optimized_legacy
 * form (`mode` changes it for the RPC `pack_data`'s other modes).
 * @example toHex(packData(ty("int"), -1n)) // "050041"
 */
export function packData(t: Ty, v: Value, opts: UnparseDataOptions & { mode?: UnparsingMode } = {}): Uint8Array {
  return packNode(unparseData(t, v, opts.mode ?? "Optimized_legacy", opts), opts.gas);
}

/** BLAKE2b-256 of packed bytes as an `expr…` script expression hash. */
export function scriptExprHashOf(packed: Uint8Array): string {
  return b58encode(B58.scriptExprHash, blake2b256(packed));
}

/** The 32-byte key hash of a value (`hash_comparable_data`/`hash_data`): BLAKE2b-256 of its packed form, gas charged. */
export function hashData(t: Ty, v: Value, gas?: GasMeter): Uint8Array {
  const packed = packData(t, v, { gas });
  gas?.consume(IN.blake2b(packed));
  return blake2b256(packed);
}

class SubMeter implements GasMeter {
  used = 0;
  private readonly parent: GasMeter;
  constructor(parent: GasMeter) {
    this.parent = parent;
  }
  consume(milligas: number): void {
    this.used += milligas;
    if (this.used > this.parent.remaining()) throw new UnpackOutOfGas();
  }
  remaining(): number {
    return this.parent.remaining() - this.used;
  }
}
class UnpackOutOfGas extends Error {}

/**
 * `UNPACK`: `Some v` (`{ some: v }`) with the value of type `t` packed in `bytes`, or `None`
 * (`null`) when they are not 0x05 followed by a Micheline expression that typechecks as `t`
 * (no legacy forms, no forged values): the `option t` value the instruction pushes. As Octez, the
 * gas spent on a failed typecheck is not charged; `unpack_failed` is charged instead. The
 * instruction's own step cost is the caller's.
 */
export function unpackData(ctx: ScriptContext, t: Ty, bytes: Uint8Array): Some | null {
  ctx.gas.consume(SC.deserializationCostEstimatedFromBytes(bytes.length));
  if (bytes.length < 1 || bytes[0] !== 0x05) return null;
  const body = bytes.subarray(1);
  let expr: Micheline;
  try {
    expr = decodeMicheline(body);
  } catch {
    ctx.gas.consume(IN.unpackFailed(body));
    return null;
  }
  const sub = new SubMeter(ctx.gas);
  const subCtx = Object.create(ctx, { gas: { value: sub } }) as ScriptContext;
  let v: Value;
  try {
    v = parseData(subCtx, t, expr, { legacy: false, allowForgedTickets: false, allowForgedLazyStorageId: false });
  } catch {
    ctx.gas.consume(IN.unpackFailed(body));
    return null;
  }
  ctx.gas.consume(sub.used);
  return { some: v };
}
