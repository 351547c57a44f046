/**
 * Michelson values back to Micheline (Octez `unparse_data`): Readable mode prints strings
 * (addresses, keys, RFC 3339 timestamps) and flat combs `Pair a b c`; Optimized mode prints bytes
 * and combs of four or more elements as sequences `{a; b; c; d}`; Optimized_legacy prints bytes
 * and nested binary pairs (the form `PACK` hashes).
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import { toHex } from "../../encoding/hex.ts";
import type { GasMeter, ScriptContext } from "../context.ts";
import type { Ty } from "../ty.ts";
import type { Address, BigMap, Lambda, MMap, OrValue, Operation, Some, Ticket, TypedContract, Value } from "../value.ts";
import { MList } from "../value.ts";
import * as UN from "../gas/unparsing.ts";
import { frToBytes } from "../crypto/bls12-381.ts";
import { chestPlaintextSize } from "../crypto/timelock.ts";
import { compareValues } from "./compare.ts";
import { addressToBytes, addressToString, chainIdToBytes, keyHashToBytes, keyToBytes, signatureToBytes, timestampToNotation } from "./forms.ts";
import { unparsingTooManyRecursiveCalls } from "./errors.ts";
import { guardStack } from "./stack-guard.ts";
import type { UnparsingMode } from "./parse-type.ts";

export type { UnparsingMode } from "./parse-type.ts";

/** Options of {@link unparseData}. */
export interface UnparseDataOptions {
  /** Charged the unparsing costs. */
  readonly gas?: GasMeter;
  /**
   * Context to re-read `PUSH` data inside lambdas (Octez `unparse_code` prints them in the
   * requested mode); without one, lambda code is printed as written.
   */
  readonly ctx?: ScriptContext;
  /** Binary form of an operation (Octez `internal_operation_encoding`), needed to print `operation` values. */
  readonly encodeOperation?: (op: Operation) => Uint8Array;
}

const MAX_DEPTH = 10_000;

function prim(name: string, args?: Micheline[]): MichelinePrim {
  return args === undefined || args.length === 0 ? { prim: name } : { prim: name, args };
}

/** A hook filled by `parse-data.ts`: re-parses and re-prints `PUSH t d` data inside lambda code. */
let pushNormalizer: ((ctx: ScriptContext, t: Micheline, d: Micheline, mode: UnparsingMode, gas: GasMeter | undefined) => Micheline) | undefined;

/** Installs the `PUSH` normaliser used when printing lambdas (called once by `parse-data.ts`). */
export function setPushNormalizer(f: (ctx: ScriptContext, t: Micheline, d: Micheline, mode: UnparsingMode, gas: GasMeter | undefined) => Micheline): void {
  pushNormalizer = f;
}

/**
 * The Micheline of value `v` of type `t` in `mode` (Octez `unparse_data`). Charges
 * `unparse_data_cycle` and the atom costs to `opts.gas` when given.
 * @example unparseData(ty("pair", ty("nat"), ty("pair", ty("nat"), ty("nat"))), [1n, [2n, 3n]], "Readable") // Pair 1 2 3
 */
export function unparseData(t: Ty, v: Value, mode: UnparsingMode, opts: UnparseDataOptions = {}): Micheline {
  const gas = opts.gas;
  const consume = (c: number): void => gas?.consume(c);

  const go = (t: Ty, v: Value, depth: number): Micheline => {
    consume(UN.unparseDataCycle);
    if (depth > MAX_DEPTH) throw unparsingTooManyRecursiveCalls.error(undefined);
    switch (t.prim) {
      case "unit":
        return prim("Unit");
      case "int":
      case "nat":
      case "mutez":
        return { int: (v as bigint).toString() };
      case "string":
        return { string: v as string };
      case "bytes":
        return { bytes: toHex(v as Uint8Array) };
      case "bool":
        return prim(v ? "True" : "False");
      case "timestamp": {
        if (mode !== "Readable") return { int: (v as bigint).toString() };
        consume(UN.timestampReadable);
        const s = timestampToNotation(v as bigint);
        return s === undefined ? { int: (v as bigint).toString() } : { string: s };
      }
      case "address":
        return address(v as Address);
      case "contract": {
        const c = v as TypedContract;
        return address({ address: c.address, entrypoint: c.entrypoint });
      }
      case "signature":
        if (mode === "Readable") {
          consume(UN.signatureReadable);
          return { string: v as string };
        }
        consume(UN.signatureOptimized);
        return { bytes: toHex(signatureToBytes(v as string)) };
      case "key":
        if (mode === "Readable") {
          consume(UN.publicKeyReadable);
          return { string: v as string };
        }
        consume(UN.publicKeyOptimized);
        return { bytes: toHex(keyToBytes(v as string)) };
      case "key_hash":
        if (mode === "Readable") {
          consume(UN.keyHashReadable);
          return { string: v as string };
        }
        consume(UN.keyHashOptimized);
        return { bytes: toHex(keyHashToBytes(v as string)) };
      case "chain_id":
        if (mode === "Readable") {
          consume(UN.chainIdReadable);
          return { string: v as string };
        }
        consume(UN.chainIdOptimized);
        return { bytes: toHex(chainIdToBytes(v as string)) };
      case "operation": {
        if (opts.encodeOperation === undefined) throw new TypeError("unparseData: printing an operation needs opts.encodeOperation");
        const b = opts.encodeOperation(v as Operation);
        consume(UN.operation(b));
        return { bytes: toHex(b) };
      }
      case "bls12_381_g1":
        consume(UN.bls12381G1);
        return { bytes: toHex(v as Uint8Array) };
      case "bls12_381_g2":
        consume(UN.bls12381G2);
        return { bytes: toHex(v as Uint8Array) };
      case "bls12_381_fr":
        consume(UN.bls12381Fr);
        return { bytes: toHex(frToBytes(v as bigint)) };
      case "chest_key":
        consume(UN.chestKey);
        return { bytes: toHex(v as Uint8Array) };
      case "chest":
        consume(UN.chest(chestPlaintextSize(v as Uint8Array)));
        return { bytes: toHex(v as Uint8Array) };
      case "pair":
        return pair(t, v as readonly [Value, Value], depth);
      case "or": {
        const o = v as OrValue;
        return prim(o.or, [go(t.args[o.or === "Left" ? 0 : 1]!, o.value, depth + 1)]);
      }
      case "option":
        return v === null ? prim("None") : prim("Some", [go(t.args[0]!, (v as Some).some, depth + 1)]);
      case "list": {
        const items = (v as MList).toArray();
        return items.map((x) => go(t.args[0]!, x, depth + 1));
      }
      case "ticket": {
        const tk = v as Ticket;
        const opened = openedTicketTy(t.args[0]!);
        const pct = tk.ticketer.indexOf("%");
        const ticketer: Address = pct < 0 ? { address: tk.ticketer, entrypoint: "" } : { address: tk.ticketer.slice(0, pct), entrypoint: tk.ticketer.slice(pct + 1) };
        return go(opened, [ticketer, [tk.contents, tk.amount]], depth);
      }
      case "set": {
        const out: Micheline[] = [];
        for (const [k] of (v as MMap).entries()) out.push(go(t.args[0]!, k, depth + 1));
        return out;
      }
      case "map": {
        const out: Micheline[] = [];
        for (const [k, x] of (v as MMap).entries()) out.push(prim("Elt", [go(t.args[0]!, k, depth + 1), go(t.args[1]!, x, depth + 2)]));
        return out;
      }
      case "big_map": {
        const bm = v as BigMap;
        const kt = t.args[0]!, vt = t.args[1]!;
        const entries = [...bm.diff.entries()].sort((a, b) => compareValues(kt, a[0], b[0]));
        if (bm.id !== undefined) {
          if (bm.diff.size === 0) return { int: bm.id.toString() };
          const items = entries.map(([k, x]) => prim("Elt", [go(kt, k, depth + 1), x === null ? prim("None") : prim("Some", [go(vt, (x as Some).some, depth + 2)])]));
          return prim("Pair", [{ int: bm.id.toString() }, items]);
        }
        return entries.filter(([, x]) => x !== null).map(([k, x]) => prim("Elt", [go(kt, k, depth + 1), go(vt, (x as Some).some, depth + 2)]));
      }
      case "lambda":
        return code((v as Lambda).code, depth + 1);
      case "never":
        throw new TypeError("unparseData: there is no value of type never");
      default:
        throw new TypeError(`unparseData: ${t.prim} values are not supported`);
    }
  };

  const address = (a: Address): Micheline => {
    consume(UN.contract);
    if (mode === "Readable") return { string: addressToString(a) };
    return { bytes: toHex(addressToBytes(a)) };
  };

  const pair = (t: Ty, v: readonly [Value, Value], depth: number): Micheline => {
    const l = go(t.args[0]!, v[0], depth + 1);
    const r = go(t.args[1]!, v[1], depth + 1);
    const rt = t.args[1]!;
    const rIsPair = rt.prim === "pair";
    if (mode === "Optimized" && rIsPair && Array.isArray(r)) return [l, ...(r as Micheline[])];
    if (mode === "Optimized" && rIsPair && rt.args[1]!.prim === "pair") {
      const rp = r as MichelinePrim;
      const x3 = rp.args?.[1] as MichelinePrim | undefined;
      if (rp.prim === "Pair" && rp.annots === undefined && x3 !== undefined && x3.prim === "Pair" && x3.annots === undefined && x3.args?.length === 2) {
        return [l, rp.args![0]!, x3.args[0]!, x3.args[1]!];
      }
    }
    if (mode === "Readable" && rIsPair) {
      const rp = r as MichelinePrim;
      if (!Array.isArray(r) && rp.prim === "Pair" && rp.annots === undefined) return prim("Pair", [l, ...(rp.args ?? [])]);
    }
    return prim("Pair", [l, r]);
  };

  const code = (n: Micheline, depth: number): Micheline => {
    consume(UN.unparseInstrCycle);
    if (depth > MAX_DEPTH) throw unparsingTooManyRecursiveCalls.error(undefined);
    if (Array.isArray(n)) return (n as Micheline[]).map((x) => code(x, depth + 1));
    const p = n as MichelinePrim;
    if (p.prim === undefined) return n;
    if (p.prim === "PUSH" && p.args?.length === 2 && opts.ctx !== undefined && pushNormalizer !== undefined) {
      const data = pushNormalizer(opts.ctx, p.args[0]!, p.args[1]!, mode, gas);
      return { ...p, args: [p.args[0]!, data] };
    }
    if (p.args === undefined) return n;
    return { ...p, args: p.args.map((x) => code(x, depth + 1)) };
  };

  return guardStack(() => go(t, v, 0), () => unparsingTooManyRecursiveCalls.error(undefined));
}

/** The type tickets are read and printed as: `pair address t nat` (Octez `opened_ticket_type`). */
export function openedTicketTy(contents: Ty): Ty {
  return { prim: "pair", args: [{ prim: "address", args: [] }, { prim: "pair", args: [contents, { prim: "nat", args: [] }] }] };
}
