/**
 * Michelson data typechecking (Octez `Script_ir_translator.parse_data` and
 * `parse_comparable_data`): a Micheline expression read as a value of a type, with Hangzhou's
 * accepted forms (Readable strings and Optimized bytes; `Pair a b c` and `{a; b; c}` for right
 * combs; ordered, duplicate-free sets and maps; big map ids where forged values are allowed) and
 * its errors, each wrapped in `invalid_constant` as Octez traces them.
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";
import { fromHex } from "../../encoding/hex.ts";
import { TezosError } from "../../errors/mod.ts";
import type { GasMeter, ScriptContext } from "../context.ts";
import type { Ty } from "../ty.ts";
import type { Address, BigMap, Lambda, TypedContract, Value } from "../value.ts";
import { MList } from "../value.ts";
import * as TC from "../gas/typechecking.ts";
import * as IN from "../gas/interpreter.ts";
import { frFromBytes, frFromInt, g1FromBytes, g2FromBytes } from "../crypto/bls12-381.ts";
import { decodeChest, decodeChestKey } from "../crypto/timelock.ts";
import { errorUnexpectedAnnot } from "./annot.ts";
import { compareValues } from "./compare.ts";
import {
  duplicateMapKeys, duplicateSetValues, entrypointNameTooLong, invalidArity, invalidBigMap, invalidConstant, invalidContract,
  invalidContractNotation, invalidNeverExpr, invalidPrimitive, invalidSeqArity, invalidSyntacticConstant, noSuchEntrypoint, nonPrintableCharacter,
  saplingNotSupported, typecheckingTooManyRecursiveCalls, unexpectedAnnotation, unexpectedForgedValue, unorderedMapKeys, unorderedSetValues,
} from "./errors.ts";
import {
  chainIdOfBytes, firstNonPrintable, isContract, isImplicit, isKey, isKeyHash, isSignature, keyHashOfBytes, keyOfBytes,
  MAX_ENTRYPOINT_LENGTH, signatureOfBytes, splitAddressBytes, timestampOfString,
} from "./forms.ts";
import { B58, b58tryDecode } from "../../encoding/base58.ts";
import { emptyMap, TreeMap } from "./map.ts";
import { asPrim, invalidKindError, isGasExhaustion, Locations, unexpectedNode } from "./node.ts";
import { hashData } from "./pack.ts";
import { mergeComparableTypes, mergeTypes, parsePackableTy, unparseTy, type UnparsingMode, withField } from "./parse-type.ts";
import { openedTicketTy, setPushNormalizer, unparseData } from "./unparse-data.ts";
import { toHex } from "../../encoding/hex.ts";
import { canonicalLocations } from "../location.ts";
import { guardStack } from "./stack-guard.ts";

/** Options of {@link parseData}. */
export interface ParseDataOptions {
  /** Data already on chain: legacy annotation rules (annotations on data constructors ignored). */
  readonly legacy?: boolean;
  /** Tickets may be written as `Pair ticketer contents amount` (internal calls, stored data). */
  readonly allowForgedTickets?: boolean;
  /** Big maps may be given by id (internal calls, stored data). */
  readonly allowForgedLazyStorageId?: boolean;
  /** Canonical locations of the nodes (default: `node` is a root numbered from 0). */
  readonly locations?: WeakMap<object, number>;
}

/** What `parseData` needs to read a lambda constant: the instruction type checker. */
export type LambdaTypechecker = (
  ctx: ScriptContext, argTy: Ty, retTy: Ty, code: Micheline, opts: { legacy: boolean; locations: WeakMap<object, number> },
) => Lambda;

let lambdaTypechecker: LambdaTypechecker | undefined;

/** Installs the lambda type checker (`script/lambda.ts` calls this when loaded). */
export function setLambdaTypechecker(f: LambdaTypechecker): void {
  lambdaTypechecker = f;
}

const MAX_DEPTH = 10_000;
const MAX_INT64 = (1n << 63n) - 1n;

class DataParser {
  readonly ctx: ScriptContext;
  readonly gas: GasMeter;
  readonly legacy: boolean;
  readonly forgedTickets: boolean;
  readonly forgedIds: boolean;
  readonly locs: Locations;
  readonly locMap: WeakMap<object, number>;
  constructor(ctx: ScriptContext, opts: ParseDataOptions, locMap: WeakMap<object, number>) {
    this.ctx = ctx;
    this.gas = ctx.gas;
    this.legacy = opts.legacy ?? false;
    this.forgedTickets = opts.allowForgedTickets ?? false;
    this.forgedIds = opts.allowForgedLazyStorageId ?? false;
    this.locMap = locMap;
    this.locs = new Locations(locMap);
  }

  private loc(n: Micheline): number {
    return this.locs.get(n);
  }

  /** Runs `body`; its errors get `invalid_constant` (this node, this type) in front. */
  private traced<T>(t: Ty, n: Micheline, body: () => T): T {
    try {
      return body();
    } catch (e) {
      if (!(e instanceof TezosError) || isGasExhaustion(e)) throw e;
      throw e.withContext(this.invalidConstant(t, n).trace[0]!);
    }
  }

  private invalidConstant(t: Ty, n: Micheline): TezosError {
    return invalidConstant.error({ location: this.loc(n), expected_type: unparseTy(t), wrong_expression: n });
  }

  private annotCheck(p: MichelinePrim, legacy: boolean): void {
    if (!legacy) errorUnexpectedAnnot(this.loc(p), p.annots);
  }

  // -- atoms --

  private unit(n: Micheline, legacy: boolean): null {
    const p = asPrim(n);
    if (p !== undefined && p.prim === "Unit") {
      if ((p.args?.length ?? 0) !== 0) throw invalidArity.error({ location: this.loc(n), primitive_name: "Unit", expected_arity: 0, wrong_arity: p.args!.length });
      this.annotCheck(p, legacy);
      this.gas.consume(TC.unit);
      return null;
    }
    throw unexpectedNode(n, this.loc(n), [], "constant", ["Unit"]);
  }

  private bool(n: Micheline, legacy: boolean): boolean {
    const p = asPrim(n);
    if (p !== undefined && (p.prim === "True" || p.prim === "False")) {
      if ((p.args?.length ?? 0) !== 0) throw invalidArity.error({ location: this.loc(n), primitive_name: p.prim, expected_arity: 0, wrong_arity: p.args!.length });
      this.annotCheck(p, legacy);
      this.gas.consume(TC.bool);
      return p.prim === "True";
    }
    throw unexpectedNode(n, this.loc(n), [], "constant", ["True", "False"]);
  }

  private str(n: Micheline): string {
    if (Array.isArray(n) || !("string" in (n as object))) throw invalidKindError(n, this.loc(n), ["string"]);
    const s = (n as { string: string }).string;
    this.gas.consume(TC.checkPrintable(s));
    const bad = firstNonPrintable(s);
    if (bad >= 0) {
      const inner = nonPrintableCharacter.error({ position: bad, string: s });
      throw inner.withContext(invalidSyntacticConstant.create({ location: this.loc(n), expected_form: "a printable ascii string", wrong_expression: n }));
    }
    return s;
  }

  private syntactic(n: Micheline, form: string): TezosError {
    return invalidSyntacticConstant.error({ location: this.loc(n), expected_form: form, wrong_expression: n });
  }

  private int(n: Micheline): bigint {
    if (Array.isArray(n) || !("int" in (n as object))) throw invalidKindError(n, this.loc(n), ["integer"]);
    return BigInt((n as { int: string }).int);
  }

  private kindOf(n: Micheline): "string" | "bytes" | "int" | "other" {
    if (Array.isArray(n)) return "other";
    const o = n as object;
    return "string" in o ? "string" : "bytes" in o ? "bytes" : "int" in o ? "int" : "other";
  }

  /** A key / key hash / signature / chain id: bytes (Optimized) or a Base58Check string (Readable). */
  private b58Atom(n: Micheline, costs: [number, number], form: string, ofBytes: (b: Uint8Array) => string | undefined, ofString: (s: string) => boolean): string {
    const k = this.kindOf(n);
    if (k === "bytes") {
      this.gas.consume(costs[0]);
      const s = ofBytes(fromHex((n as { bytes: string }).bytes));
      if (s === undefined) throw this.syntactic(n, form);
      return s;
    }
    if (k === "string") {
      this.gas.consume(costs[1]);
      const s = (n as { string: string }).string;
      if (!ofString(s)) throw this.syntactic(n, form);
      return s;
    }
    throw invalidKindError(n, this.loc(n), ["string", "bytes"]);
  }

  private address(n: Micheline): Address {
    const k = this.kindOf(n);
    const loc = this.loc(n);
    if (k === "bytes") {
      this.gas.consume(TC.contract);
      const r = splitAddressBytes(fromHex((n as { bytes: string }).bytes));
      if (r === undefined) throw this.syntactic(n, "a valid address");
      if (r.entrypoint.length > MAX_ENTRYPOINT_LENGTH) throw entrypointNameTooLong.error({ name: r.entrypoint });
      if (r.entrypoint === "default") throw unexpectedAnnotation.error({ location: loc });
      return { address: r.contract, entrypoint: r.entrypoint };
    }
    if (k === "string") {
      this.gas.consume(TC.contract);
      const s = (n as { string: string }).string;
      const pct = s.indexOf("%");
      let addr = s, entrypoint = "";
      if (pct >= 0) {
        const name = s.slice(pct + 1);
        if (name.length > MAX_ENTRYPOINT_LENGTH) throw entrypointNameTooLong.error({ name });
        if (name === "default") throw unexpectedAnnotation.error({ location: loc });
        addr = s.slice(0, pct);
        entrypoint = name;
      }
      if (!isContract(addr)) throw invalidContractNotation.error({ notation: addr });
      return { address: addr, entrypoint };
    }
    throw invalidKindError(n, loc, ["string", "bytes"]);
  }

  // -- contracts --

  /** Octez `parse_contract`: the contract `address` at `entrypoint` must take `arg`. */
  contract(loc: number, arg: Ty, address: string, entrypoint: string): TypedContract {
    if (isImplicit(address)) {
      if (entrypoint !== "") throw noSuchEntrypoint.error({ entrypoint });
      mergeTypes(arg, { prim: "unit", args: [] }, { legacy: true, loc, gas: this.gas });
      return { address, entrypoint: "", paramTy: arg };
    }
    const full = this.ctx.contractParameterType(address);
    if (full === undefined) throw invalidContract.error({ location: loc, contract: address });
    const found = findEntrypointForType(full, arg, entrypoint, loc, this.legacy, this.gas);
    return { address, entrypoint: found === "default" ? "" : found, paramTy: arg };
  }

  // -- composite --

  private pair(t: Ty, n: Micheline, legacy: boolean, sub: (t: Ty, n: Micheline) => Value): readonly [Value, Value] {
    const loc = this.loc(n);
    const comb = (l: Micheline, rs: readonly Micheline[]): readonly [Value, Value] => {
      const lv = sub(t.args[0]!, l);
      let r: Micheline;
      if (rs.length === 1) r = rs[0]!;
      else if (rs.length === 0) throw invalidArity.error({ location: loc, primitive_name: "Pair", expected_arity: 2, wrong_arity: 1 });
      else if (t.args[1]!.prim === "pair") r = this.locs.set({ prim: "Pair", args: rs }, loc);
      else throw invalidArity.error({ location: loc, primitive_name: "Pair", expected_arity: 2, wrong_arity: 1 + rs.length });
      return [lv, sub(t.args[1]!, r)];
    };
    if (Array.isArray(n)) {
      const items = n as readonly Micheline[];
      if (items.length < 2) throw invalidSeqArity.error({ location: loc, minimal_expected_arity: 2, wrong_arity: items.length });
      return comb(items[0]!, items.slice(1));
    }
    const p = asPrim(n);
    if (p !== undefined && p.prim === "Pair") {
      const args = p.args ?? [];
      if (args.length === 0) throw invalidArity.error({ location: loc, primitive_name: "Pair", expected_arity: 2, wrong_arity: 0 });
      this.annotCheck(p, legacy);
      return comb(args[0]!, args.slice(1));
    }
    throw unexpectedNode(n, loc, [], "constant", ["Pair"]);
  }

  private union(t: Ty, n: Micheline, legacy: boolean, sub: (t: Ty, n: Micheline) => Value): Value {
    const p = asPrim(n);
    if (p !== undefined && (p.prim === "Left" || p.prim === "Right")) {
      const args = p.args ?? [];
      if (args.length !== 1) throw invalidArity.error({ location: this.loc(n), primitive_name: p.prim, expected_arity: 1, wrong_arity: args.length });
      this.annotCheck(p, legacy);
      return { or: p.prim, value: sub(t.args[p.prim === "Left" ? 0 : 1]!, args[0]!) };
    }
    throw unexpectedNode(n, this.loc(n), [], "constant", ["Left", "Right"]);
  }

  private option(t: Ty, n: Micheline, legacy: boolean, sub: (t: Ty, n: Micheline) => Value): Value {
    const p = asPrim(n);
    if (p !== undefined && p.prim === "Some") {
      const args = p.args ?? [];
      if (args.length !== 1) throw invalidArity.error({ location: this.loc(n), primitive_name: "Some", expected_arity: 1, wrong_arity: args.length });
      this.annotCheck(p, legacy);
      return { some: sub(t.args[0]!, args[0]!) };
    }
    if (p !== undefined && p.prim === "None") {
      const args = p.args ?? [];
      if (args.length !== 0) throw invalidArity.error({ location: this.loc(n), primitive_name: "None", expected_arity: 0, wrong_arity: args.length });
      this.annotCheck(p, legacy);
      return null;
    }
    throw unexpectedNode(n, this.loc(n), [], "constant", ["Some", "None"]);
  }

  /** A leaf of a comparable or any type: the atoms shared by `parse_data` and `parse_comparable_data`. */
  private atom(t: Ty, n: Micheline, legacy: boolean): Value {
    switch (t.prim) {
      case "unit":
        return this.unit(n, legacy);
      case "bool":
        return this.bool(n, legacy);
      case "string":
        return this.str(n);
      case "bytes":
        if (this.kindOf(n) !== "bytes") throw invalidKindError(n, this.loc(n), ["bytes"]);
        return fromHex((n as { bytes: string }).bytes);
      case "int":
        return this.int(n);
      case "nat": {
        const v = this.int(n);
        if (v < 0n) throw this.syntactic(n, "a non-negative integer");
        return v;
      }
      case "mutez": {
        const v = this.int(n);
        if (v < 0n || v > MAX_INT64) throw this.syntactic(n, "a valid mutez amount");
        return v;
      }
      case "timestamp": {
        const k = this.kindOf(n);
        if (k === "int") return BigInt((n as { int: string }).int);
        if (k === "string") {
          this.gas.consume(TC.timestampReadable);
          const v = timestampOfString((n as { string: string }).string);
          if (v === undefined) throw this.syntactic(n, "a valid timestamp");
          return v;
        }
        throw invalidKindError(n, this.loc(n), ["string", "integer"]);
      }
      case "key":
        return this.b58Atom(n, [TC.publicKeyOptimized, TC.publicKeyReadable], "a valid public key", keyOfBytes, isKey);
      case "key_hash":
        return this.b58Atom(n, [TC.keyHashOptimized, TC.keyHashReadable], "a valid key hash", keyHashOfBytes, isKeyHash);
      case "signature":
        return this.b58Atom(n, [TC.signatureOptimized, TC.signatureReadable], "a valid signature", signatureOfBytes, isSignature);
      case "chain_id":
        return this.b58Atom(n, [TC.chainIdOptimized, TC.chainIdReadable], "a valid chain id", chainIdOfBytes, (s) => b58tryDecode(B58.chainId, s) !== undefined);
      case "address":
        return this.address(n);
      case "never":
        throw invalidNeverExpr.error({ location: this.loc(n) });
      default:
        throw new TypeError(`parseData: ${t.prim} is not an atomic type`);
    }
  }

  /** Octez `parse_comparable_data` (annotations on constructors are never allowed). */
  comparable(t: Ty, n: Micheline): Value {
    this.gas.consume(TC.parseDataCycle);
    const sub = (t2: Ty, n2: Micheline): Value => this.comparable(t2, n2);
    return this.traced(t, n, () => {
      switch (t.prim) {
        case "pair":
          return this.pair(t, n, false, sub);
        case "or":
          return this.union(t, n, false, sub);
        case "option":
          return this.option(t, n, false, sub);
        default:
          return this.atom(t, n, false);
      }
    });
  }

  /** Octez `parse_data`. */
  data(t: Ty, n: Micheline, depth: number): Value {
    this.gas.consume(TC.parseDataCycle);
    const sub = (t2: Ty, n2: Micheline): Value => {
      if (depth > MAX_DEPTH) throw typecheckingTooManyRecursiveCalls.error(undefined);
      return this.data(t2, n2, depth + 1);
    };
    const legacy = this.legacy;
    const loc = this.loc(n);
    switch (t.prim) {
      case "pair":
        return this.traced(t, n, () => this.pair(t, n, legacy, sub));
      case "or":
        return this.traced(t, n, () => this.union(t, n, legacy, sub));
      case "option":
        return this.traced(t, n, () => this.option(t, n, legacy, sub));
      case "contract":
        return this.traced(t, n, () => {
          const a = this.address(n);
          return this.contract(loc, t.args[0]!, a.address, a.entrypoint);
        });
      case "lambda":
        return this.traced(t, n, () => {
          if (!Array.isArray(n)) throw invalidKindError(n, loc, ["sequence"]);
          if (lambdaTypechecker === undefined) throw new TypeError("parseData: no lambda type checker installed (load lib/michelson/script/lambda.ts)");
          return lambdaTypechecker(this.ctx, t.args[0]!, t.args[1]!, n, { legacy, locations: this.locMap });
        });
      case "list":
        return this.traced(t, n, () => {
          if (!Array.isArray(n)) throw invalidKindError(n, loc, ["sequence"]);
          const items = n as readonly Micheline[];
          const out: Value[] = new Array(items.length);
          for (let i = items.length - 1; i >= 0; i--) out[i] = sub(t.args[0]!, items[i]!);
          return MList.of(out);
        });
      case "ticket":
        if (!this.forgedTickets) return this.traced(t, n, () => { throw unexpectedForgedValue.error({ location: loc }); });
        {
          const v = this.comparable(openedTicketTy(t.args[0]!), n) as readonly [Address, readonly [Value, bigint]];
          const a = v[0];
          return { ticketer: a.entrypoint === "" ? a.address : `${a.address}%${a.entrypoint}`, contents: v[1][0], amount: v[1][1] };
        }
      case "set":
        return this.traced(t, n, () => this.set(t, n));
      case "map":
        return this.traced(t, n, () => {
          if (!Array.isArray(n)) throw invalidKindError(n, loc, ["sequence"]);
          return TreeMap.fromSorted(t.args[0]!, this.items(t, n, t.args[0]!, t.args[1]!, depth, (v) => v));
        });
      case "big_map":
        return this.bigMap(t, n, depth);
      case "bls12_381_g1":
      case "bls12_381_g2":
      case "bls12_381_fr":
        return this.bls(t, n);
      case "chest_key":
      case "chest":
        return this.chest(t, n);
      case "sapling_state":
      case "sapling_transaction":
        throw saplingNotSupported.error({ location: this.loc(n), prim: t.prim });
      case "operation":
        throw new TypeError("operations cannot be read from Micheline");
      default:
        return this.traced(t, n, () => this.atom(t, n, legacy));
    }
  }

  private set(t: Ty, n: Micheline): Value {
    const loc = this.loc(n);
    if (!Array.isArray(n)) throw invalidKindError(n, loc, ["sequence"]);
    const et = t.args[0]!;
    const out: (readonly [Value, Value])[] = [];
    let last: Value | undefined;
    for (const item of n as readonly Micheline[]) {
      const v = this.comparable(et, item);
      if (last !== undefined) {
        this.gas.consume(IN.compare(et, last, v));
        const c = compareValues(et, last, v);
        if (c >= 0) throw (c === 0 ? duplicateSetValues : unorderedSetValues).error({ location: loc, value: n });
      }
      this.gas.consume(IN.setUpdate(et, v, { size: out.length }));
      out.push([v, null]);
      last = v;
    }
    return TreeMap.fromSorted(et, out);
  }

  /** Elements `Elt k v` in strictly increasing key order (`parse_items`). */
  private items(t: Ty, n: Micheline, kt: Ty, vt: Ty, depth: number, wrap: (v: Value) => Value, bigMap = false): (readonly [Value, Value])[] {
    const out: (readonly [Value, Value])[] = [];
    const hashes = new Set<string>();
    let last: Value | undefined;
    for (const item of n as readonly Micheline[]) {
      const p = asPrim(item);
      const iloc = this.loc(item);
      if (p === undefined) throw this.invalidConstant(t, n);
      if (p.prim !== "Elt") throw invalidPrimitive.error({ location: iloc, expected_primitive_names: ["Elt"], wrong_primitive_name: p.prim });
      const args = p.args ?? [];
      if (args.length !== 2) throw invalidArity.error({ location: iloc, primitive_name: "Elt", expected_arity: 2, wrong_arity: args.length });
      this.annotCheck(p, this.legacy);
      const k = this.comparable(kt, args[0]!);
      const keyHash = bigMap ? toHex(hashData(kt, k, this.gas)) : "";
      if (depth > MAX_DEPTH) throw typecheckingTooManyRecursiveCalls.error(undefined);
      const v = this.data(vt, args[1]!, depth + 1);
      if (last !== undefined) {
        this.gas.consume(IN.compare(kt, last, k));
        const c = compareValues(kt, last, k);
        if (c >= 0) throw (c === 0 ? duplicateMapKeys : unorderedMapKeys).error({ location: iloc, item: n });
      }
      if (bigMap) {
        this.gas.consume(IN.bigMapUpdate({ size: out.length }));
        if (hashes.has(keyHash)) throw duplicateMapKeys.error({ location: iloc, item: n });
        hashes.add(keyHash);
      } else this.gas.consume(IN.mapUpdate(kt, k, { size: out.length }));
      out.push([k, wrap(v)]);
      last = k;
    }
    return out;
  }

  private bigMap(t: Ty, n: Micheline, depth: number): BigMap {
    const kt = t.args[0]!, vt = t.args[1]!;
    const loc = this.loc(n);
    let id: bigint | undefined;
    let idLoc = loc;
    let diff: TreeMap;
    const p = asPrim(n);
    if (!Array.isArray(n) && "int" in (n as object)) {
      id = BigInt((n as { int: string }).int);
      diff = emptyMap(kt);
    } else if (Array.isArray(n)) {
      diff = this.traced(t, n, () => TreeMap.fromSorted(kt, this.items(t, n, kt, vt, depth, (v) => ({ some: v }), true)));
    } else if (p !== undefined && p.prim === "Pair" && p.args?.length === 2 && "int" in (p.args[0] as object) && Array.isArray(p.args[1])) {
      errorUnexpectedAnnot(loc, p.annots);
      const idNode = p.args[0]!;
      id = BigInt((idNode as { int: string }).int);
      idLoc = this.loc(idNode);
      const optTy: Ty = { prim: "option", args: [vt] };
      const entries = this.traced(t, n, () => this.items(t, p.args![1]!, kt, optTy, depth, (v) => v, true));
      diff = TreeMap.fromSorted(kt, entries);
    } else {
      return this.traced(t, n, () => {
        if (p !== undefined && p.prim === "Pair") {
          const args = p.args ?? [];
          if (args.length === 2 && "int" in (args[0] as object)) throw invalidKindError(args[1]!, this.loc(args[1]!), ["sequence"]);
          if (args.length === 2) throw invalidKindError(args[0]!, this.loc(args[0]!), ["integer"]);
          throw invalidArity.error({ location: loc, primitive_name: "Pair", expected_arity: 2, wrong_arity: args.length });
        }
        throw unexpectedNode(n, loc, ["sequence", "integer"], "constant", ["Pair"]);
      });
    }
    if (id !== undefined) {
      if (!this.forgedIds) return this.traced(t, n, () => { throw unexpectedForgedValue.error({ location: idLoc }); });
      const types = this.ctx.bigMapTypes(id);
      if (types === undefined) return this.traced(t, n, () => { throw invalidBigMap.error({ location: idLoc, big_map: id! }); });
      mergeComparableTypes(kt, types.keyTy, { legacy: true, gas: this.gas });
      mergeTypes(vt, types.valueTy, { legacy: true, loc: idLoc, gas: this.gas });
    }
    return { bigMap: true, id, diff, keyTy: kt, valueTy: vt };
  }

  private bls(t: Ty, n: Micheline): Value {
    const k = this.kindOf(n);
    if (k === "bytes") {
      const b = fromHex((n as { bytes: string }).bytes);
      try {
        if (t.prim === "bls12_381_g1") {
          this.gas.consume(TC.bls12381G1);
          return g1FromBytes(b);
        }
        if (t.prim === "bls12_381_g2") {
          this.gas.consume(TC.bls12381G2);
          return g2FromBytes(b);
        }
        this.gas.consume(TC.bls12381Fr);
        return frFromBytes(b);
      } catch (e) {
        if (e instanceof TezosError) throw e;
        throw this.invalidConstant(t, n);
      }
    }
    if (k === "int" && t.prim === "bls12_381_fr") {
      this.gas.consume(TC.bls12381Fr);
      return frFromInt(BigInt((n as { int: string }).int));
    }
    return this.traced(t, n, () => { throw invalidKindError(n, this.loc(n), ["bytes"]); });
  }

  private chest(t: Ty, n: Micheline): Value {
    if (this.kindOf(n) !== "bytes") return this.traced(t, n, () => { throw invalidKindError(n, this.loc(n), ["bytes"]); });
    const b = fromHex((n as { bytes: string }).bytes);
    if (t.prim === "chest_key") this.gas.consume(TC.chestKey);
    else this.gas.consume(TC.chest(b.length));
    try {
      if (t.prim === "chest_key") decodeChestKey(b);
      else decodeChest(b);
    } catch (e) {
      if (e instanceof TezosError) throw e;
      throw this.invalidConstant(t, n);
    }
    return b;
  }
}

/**
 * Finds `entrypoint` of a contract whose parameter type is `full` (root field annotation = root
 * name) and checks it takes `expected` (Octez `find_entrypoint_for_type`). Returns the entrypoint
 * name (`"root"` when `%root` stands for the default one).
 */
export function findEntrypointForType(full: Ty, expected: Ty, entrypoint: string, loc: number, legacy: boolean, gas?: GasMeter): string {
  const name = entrypoint === "" ? "default" : entrypoint;
  const ty = findEntrypointTy(full, name);
  const root = full.field;
  const bare = withField(full, undefined);
  try {
    mergeTypes(ty === full ? bare : ty, expected, { legacy, loc, gas });
    return name;
  } catch (e) {
    if (name === "default" && root === "root" && e instanceof TezosError && !isGasExhaustion(e)) {
      mergeTypes(bare, expected, { legacy, loc, gas });
      return "root";
    }
    throw e;
  }
}

/** The type of entrypoint `name` of parameter type `full` (Octez `find_entrypoint`); throws `no_such_entrypoint`, `entrypoint_name_too_long`. */
export function findEntrypointTy(full: Ty, name: string): Ty {
  if (name === "") name = "default";
  if (name.length > MAX_ENTRYPOINT_LENGTH) throw entrypointNameTooLong.error({ name });
  if (full.field === name) return full;
  const find = (t: Ty): Ty | undefined => {
    if (t.prim !== "or") return undefined;
    const [l, r] = t.args as [Ty, Ty];
    if (l.field === name) return l;
    if (r.field === name) return r;
    return find(l) ?? find(r);
  };
  const found = find(full);
  if (found !== undefined) return withField(found, undefined);
  if (name === "default") return full;
  throw noSuchEntrypoint.error({ entrypoint: name });
}

/**
 * The value of type `t` written as `node` (Octez `parse_data`), with Hangzhou's errors. Gas goes
 * to `ctx.gas`; lambdas are typechecked by `script/lambda.ts`; contracts and big map ids are
 * checked against `ctx`.
 * @example parseData(ctx, ty("pair", ty("nat"), ty("string")), { prim: "Pair", args: [{ int: "1" }, { string: "a" }] }) // [1n, "a"]
 */
export function parseData(ctx: ScriptContext, t: Ty, node: Micheline, opts: ParseDataOptions = {}): Value {
  const locMap = opts.locations ?? canonicalLocations(node);
  return guardStack(() => new DataParser(ctx, opts, locMap).data(t, node, 0), () => typecheckingTooManyRecursiveCalls.error(undefined));
}

/** Reads a comparable value (Octez `parse_comparable_data`): constructors take no annotations. */
export function parseComparableData(ctx: ScriptContext, t: Ty, node: Micheline, opts: Pick<ParseDataOptions, "locations"> = {}): Value {
  const locMap = opts.locations ?? canonicalLocations(node);
  return guardStack(() => new DataParser(ctx, {}, locMap).comparable(t, node), () => typecheckingTooManyRecursiveCalls.error(undefined));
}

/** Typechecks contract `address%entrypoint` for parameter type `arg` (Octez `parse_contract`, as the CONTRACT instruction and data do). */
export function parseContract(ctx: ScriptContext, arg: Ty, address: string, entrypoint: string, loc = -1, legacy = false): TypedContract {
  return new DataParser(ctx, { legacy }, new WeakMap()).contract(loc, arg, address, entrypoint);
}

// Lambdas print their PUSH data in the requested mode: re-read with the packable type (legacy), then print.
setPushNormalizer((ctx: ScriptContext, tNode: Micheline, dNode: Micheline, mode: UnparsingMode, gas: GasMeter | undefined): Micheline => {
  const t = parsePackableTy(tNode, { legacy: true, gas });
  const v = parseData(ctx, t, dNode, { legacy: true });
  return unparseData(t, v, mode, { gas, ctx });
});
