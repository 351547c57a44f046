/**
 * The machine's control flow (Octez `next` and the continuation rules of `Script_interpreter`)
 * and the instructions that need more than a line: big maps, lambdas, domain operations.
 * @module
 */
import type { Micheline } from "../../encoding/micheline.ts";
import type { LazyStorageDiffItem } from "../../encoding/hangzhou/receipts/lazy-storage-diff.ts";
import type { Ty } from "../ty.ts";
import type { Address, BigMap, Lambda, MList, MMap, Operation, Some, TypedContract, Value } from "../value.ts";
import { MList as MListClass } from "../value.ts";
import type { ScriptContext } from "../context.ts";
import { TezosError } from "../../errors/mod.ts";
import * as G from "../gas/interpreter.ts";
import { parseData } from "../data/parse-data.ts";
import { unparseData } from "../data/unparse-data.ts";
import { hashData, packData, unpackData } from "../data/pack.ts";
import { emptyMap } from "../data/map.ts";
import { parseViewTy, parseParameterTy, unparseTy } from "../data/parse-type.ts";
import { stripLocationsCost } from "../gas/script.ts";
import { collectLazyStorage, extractLazyStorageDiff } from "../lazy-storage.ts";
import { checkPrintable, mergeCycle, parseInstrCycle } from "../gas/typechecking.ts";
import { invalidKindError } from "../data/node.ts";
import * as H from "../crypto/hash.ts";
import * as B from "../crypto/bls12-381.ts";
import { checkSignature as checkSig } from "../crypto/signature.ts";
import { openChest as tlOpenChest, chestPlaintextSize as tlPlaintextSize } from "../crypto/timelock.ts";
import { formatPublicKeyHash, parsePublicKey, publicKeyHash } from "../../crypto/keys.ts";
import { tezAdd as tAdd, tezMul, tezSub as tSub } from "../../protocols/hangzhou/storage/tez.ts";
import { invalidSyntacticConstant } from "../data/errors.ts";
import { isAllowedString } from "./annot.ts";
import {
  badViewName, entrypointNameTooLong, noSuchEntrypoint, scriptOverflow, scriptRejected, saplingNotSupported, viewNameTooLong,
} from "./errors.ts";
import { K, type Cont, type Instr, type Machine, type StepConstants, type Tracer, type TraceItem } from "./machine.ts";
import type { CheckedLambda } from "./parse-instr.ts";
import { Checker } from "./parse-instr.ts";
import { mergeTypes, sameType, type Stack, unparseTyAnnot } from "./types.ts";
import { addr, isDefaultEntrypoint, left, right, some } from "./values.ts";
import type { ParsedScript } from "./script.ts";
import { parseScript, parseScriptNode, typecheckView, type ToplevelParts } from "./script.ts";
import { expandStoredConstants } from "./global-constants.ts";

// ---------------------------------------------------------------- the machine

class M implements Machine {
  stack: Value[];
  code: readonly Instr[];
  pc = 0;
  readonly ks: Cont[] = [];
  readonly gas;
  readonly ctx: ScriptContext;
  sc: StepConstants;
  traced: boolean;
  readonly tracer: Tracer | undefined;
  done = false;
  /** Set to stop the run after the current instruction (a sliced run, to let other work go on). */
  pause = false;
  constructor(ctx: ScriptContext, sc: StepConstants, code: readonly Instr[], stack: Value[], tracer: Tracer | undefined) {
    this.ctx = ctx;
    this.gas = ctx.gas;
    this.sc = sc;
    this.code = code;
    this.stack = stack;
    this.tracer = tracer;
    this.traced = tracer !== undefined;
  }
  log(loc: number, aft: Stack): void {
    if (!this.traced || this.tracer === undefined) return;
    const items: TraceItem[] = [];
    let s = aft;
    for (let i = this.stack.length - 1; i >= 0 && s !== null; i--, s = s.rest) {
      items.push(s.annot === undefined ? { value: this.stack[i], ty: s.ty } : { value: this.stack[i], ty: s.ty, annot: s.annot });
    }
    this.tracer(loc, this.gas.remaining(), items);
  }
  logBefore(loc: number, code: readonly Instr[], pc: number, fallback: Stack): void {
    if (!this.traced || this.tracer === undefined) return;
    this.log(loc, this.stackTyAt(code, pc, fallback, this.ks.length - 1));
  }
  /**
   * The stack type Octez's `kinfo` gives `code[pc]` (what its trace shows after the previous
   * step): `fallback` for an instruction, the carried type for a HALT; the HALT of a branch carries
   * the type of the conditional's continuation, found through the continuation stack from `k`.
   */
  private stackTyAt(code: readonly Instr[], pc: number, fallback: Stack, k: number): Stack {
    const i = code[pc];
    if (i === undefined || i.halt === undefined) return fallback;
    if (i.halt === "static") return i.aft;
    for (let j = k; j >= 0; j--) {
      const c = this.ks[j]!;
      if (c.k === K.CONS) return this.stackTyAt(c.code, c.pc, c.log?.aft ?? i.aft, j - 1);
    }
    return i.aft;
  }
  /** Runs a loop-like continuation's body once more, the continuation kept for the next turn. */
  private reenter(c: Cont & { readonly body: readonly Instr[]; readonly loc: number; readonly bodyBef: Stack }): void {
    this.ks.push(c);
    this.code = c.body;
    this.pc = 0;
    this.logBefore(c.loc, c.body, 0, c.bodyBef);
  }

  next(): void {
    const ks = this.ks;
    for (;;) {
      const c = ks.pop();
      if (c === undefined) {
        this.gas.consume(G.control.nil);
        this.done = true;
        return;
      }
      switch (c.k) {
        case K.CONS:
          if (!this.traced) this.gas.consume(G.control.cons);
          this.code = c.code;
          this.pc = c.pc;
          if (c.log !== undefined) this.logBefore(c.log.loc, c.code, c.pc, c.log.aft);
          return;
        case K.UNDIP:
          this.gas.consume(G.control.undip);
          this.stack.push(c.value);
          continue;
        case K.UNDIPN: {
          if (!this.traced) this.gas.consume(G.control.cons);
          let aft = c.aft;
          const n = c.n;
          for (let j = 0; j < n; j++) {
            // the j-th restored item leaves n-1-j items still to restore
            this.gas.consume(G.const_);
            this.stack.push(c.values[n - 1 - j]);
            let s = c.aft;
            for (let d = 0; d < n - 1 - j && s !== null; d++) s = s.rest;
            aft = s;
            this.log(c.loc, aft);
          }
          continue;
        }
        case K.LOOP_IN:
        case K.LOOP_IN_LEFT: {
          if (!this.traced) this.gas.consume(c.k === K.LOOP_IN ? G.control.loopIn : G.control.loopInLeft);
          const st = this.stack;
          if (c.k === K.LOOP_IN) {
            if (st.pop() as boolean) {
              this.reenter(c);
              return;
            }
          } else {
            const v = st[st.length - 1] as { or: string; value: Value };
            st[st.length - 1] = v.value;
            if (v.or === "Left") {
              this.reenter(c);
              return;
            }
          }
          continue;
        }
        case K.ITER:
          if (!this.traced) this.gas.consume(G.control.iter);
          if (c.i < c.items.length) {
            this.stack.push(c.items[c.i++]);
            this.reenter(c);
            return;
          }
          continue;
        case K.LIST_MAP: {
          if (c.inBody) {
            if (!this.traced) this.gas.consume(G.control.listExitBody);
            c.ys.push(this.stack.pop() as Value);
            c.inBody = false;
          }
          const remaining = c.items.length - c.i;
          if (!this.traced) this.gas.consume(G.control.listEnterBody(remaining, c.items.length));
          if (remaining > 0) {
            this.stack.push(c.items[c.i++]);
            c.inBody = true;
            this.reenter(c);
            return;
          }
          this.stack.push(MListClass.of(c.ys));
          continue;
        }
        case K.MAP_MAP: {
          if (c.inBody) {
            const key = c.items[c.i - 1][0];
            if (!this.traced) this.gas.consume(G.control.mapExitBody(c.keyTy, key, c.ys));
            c.ys = c.ys.set(key, this.stack.pop() as Value);
            c.inBody = false;
          }
          if (!this.traced) this.gas.consume(G.control.mapEnterBody);
          if (c.i < c.items.length) {
            this.stack.push(c.items[c.i++] as unknown as Value);
            c.inBody = true;
            this.reenter(c);
            return;
          }
          this.stack.push(c.ys);
          continue;
        }
        case K.RETURN: {
          this.gas.consume(G.control.return);
          const r = this.stack[this.stack.length - 1];
          this.stack = c.saved;
          this.stack.push(r);
          continue;
        }
        case K.VIEW_EXIT:
          if (!this.traced) this.gas.consume(G.control.viewExit);
          this.sc = c.sc;
          continue;
        case K.VIEW_SOME: {
          this.gas.consume(G.control.cons);
          this.gas.consume(G.consSome);
          this.traced = c.traced;
          this.code = c.code; // the caller's code after VIEW
          this.pc = c.pc;
          const st = this.stack;
          st[st.length - 1] = some(st[st.length - 1]);
          this.log(c.loc, c.aft);
          return;
        }
      }
    }
  }
  run(): void {
    while (!this.done && !this.pause) {
      const i = this.code[this.pc++];
      i.run(this);
      if (i.logExit && this.traced) this.logBefore(i.loc, this.code, this.pc, i.aft);
    }
  }
}

/**
 * Runs a checked lambda body on `arg` (Octez `interp`): logs the initial stack at the first
 * instruction's location, then every step; returns the value left on the stack.
 */
export function runLambda(ctx: ScriptContext, sc: StepConstants, lam: CheckedLambda, arg: Value, tracer?: Tracer): Value {
  const m = new M(ctx, sc, lam.body, [arg], tracer);
  m.log(lam.body[0].loc, lam.bef);
  m.run();
  return m.stack[0];
}

/** What a run that pauses needs: a hook called when a slice of work is over, and the pause. */
export interface RunSlices {
  onSlice: (() => void) | undefined;
  pause(): Promise<void>;
}

/**
 * {@link runLambda} in slices: when `slices` says a slice is over, the machine stops after its
 * current instruction, `slices.pause()` lets other work go on, and the run goes on where it was.
 * Gas, results and traces are those of {@link runLambda}. A lambda run inside an instruction
 * (a view) runs through before the pause.
 */
export async function runLambdaSliced(ctx: ScriptContext, sc: StepConstants, lam: CheckedLambda, arg: Value, tracer: Tracer | undefined, slices: RunSlices): Promise<Value> {
  const m = new M(ctx, sc, lam.body, [arg], tracer);
  m.log(lam.body[0].loc, lam.bef);
  slices.onSlice = () => {
    m.pause = true;
  };
  try {
    for (m.run(); !m.done; m.run()) {
      m.pause = false;
      await slices.pause();
    }
  } finally {
    slices.onSlice = undefined;
  }
  return m.stack[0];
}

// ---------------------------------------------------------------- control instructions

/** Enters the branch of an IF-like instruction: logs the instruction, then runs `body`, then the rest. */
export function enterBranch(m: Machine, body: readonly Instr[], self: Instr, bodyBef: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc: self.loc, aft: self.aft } });
  m.code = body;
  m.pc = 0;
  m.logBefore(self.loc, body, 0, bodyBef);
}

/** DIP: keeps the top aside while `body` runs on the rest. */
export function dip(m: Machine, self: Instr, body: readonly Instr[], bodyBef: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc: self.loc, aft: self.aft } });
  m.ks.push({ k: K.UNDIP, value: m.stack.pop() as Value });
  m.code = body;
  m.pc = 0;
  m.logBefore(self.loc, body, 0, bodyBef);
}

/** DIP n: keeps the top `n` items aside while `body` runs. */
export function dipn(m: Machine, self: Instr, body: readonly Instr[], n: number, bodyBef: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc: self.loc, aft: self.aft } });
  const values = m.stack.splice(m.stack.length - n, n).reverse();
  m.ks.push({ k: K.UNDIPN, values, loc: self.loc, aft: self.aft, n });
  m.code = body;
  m.pc = 0;
  m.logBefore(self.loc, body, 0, bodyBef);
}

/** LOOP / LOOP_LEFT. */
export function startLoop(m: Machine, body: readonly Instr[], loc: number, bodyBef: Stack, isLeft: boolean, aft?: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc, aft: aft ?? (bodyBef) } });
  m.ks.push({ k: isLeft ? K.LOOP_IN_LEFT : K.LOOP_IN, body, loc, bodyBef });
  m.next();
}

/** ITER over list, set or map items. */
export function startIter(m: Machine, body: readonly Instr[], items: Value[], loc: number, bodyBef: Stack, aft: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc, aft } });
  m.ks.push({ k: K.ITER, body, items, i: 0, loc, bodyBef });
  m.next();
}

/** MAP over a list. */
export function startListMap(m: Machine, body: readonly Instr[], l: MList, loc: number, bodyBef: Stack, aft: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc, aft } });
  m.ks.push({ k: K.LIST_MAP, body, items: l.toArray(), i: 0, ys: [], inBody: false, loc, bodyBef });
  m.next();
}

/** MAP over a map. */
export function startMapMap(m: Machine, body: readonly Instr[], map: MMap, keyTy: Ty, loc: number, bodyBef: Stack, aft: Stack): void {
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc, aft } });
  const items: (readonly [Value, Value])[] = [];
  for (const e of map.entries()) items.push([e[0], e[1]]);
  m.ks.push({ k: K.MAP_MAP, body, items, i: 0, ys: emptyMap(keyTy), inBody: false, keyTy, loc, bodyBef });
  m.next();
}

/** EXEC: runs the lambda on the argument, then goes on. */
export function exec(m: Machine, self: Instr): void {
  const st = m.stack;
  const arg = st.pop() as Value;
  const lam = st.pop() as Lambda;
  const c = lam.compiled as CheckedLambda;
  m.ks.push({ k: K.CONS, code: m.code, pc: m.pc, log: { loc: self.loc, aft: self.aft } });
  m.ks.push({ k: K.RETURN, saved: st });
  m.stack = [arg];
  m.code = c.body;
  m.pc = 0;
}

/** APPLY: the lambda with its first argument fixed (`PUSH capture; PAIR; code`). */
export function applyLambda(m: Machine, capTy: Ty, capture: Value, lam: Lambda): Lambda {
  const c = lam.compiled as CheckedLambda;
  const capNode = unparseData(capTy, capture, "Optimized", { gas: m.gas });
  const tyNode = unparseTy(capTy, "Optimized", m.gas);
  const argTy = lam.argTy.args[1];
  const bef: Stack = { ty: argTy, annot: undefined, rest: null };
  const pushI: Instr = {
    loc: c.loc, aft: { ty: capTy, annot: undefined, rest: bef }, logExit: true,
    run: (mm) => { mm.gas.consume(G.const_); mm.stack.push(capture); },
  };
  const pairI: Instr = {
    loc: c.loc, aft: c.bef, logExit: true,
    run: (mm) => {
      mm.gas.consume(G.consPair);
      const st = mm.stack;
      const x = st.pop() as Value;
      st[st.length - 1] = [x, st[st.length - 1]];
    },
  };
  const compiled: CheckedLambda = { body: [pushI, pairI, ...c.body], bef, aft: c.aft, loc: c.loc };
  const code: Micheline = [{ prim: "PUSH", args: [tyNode, capNode] }, { prim: "PAIR" }, lam.code];
  return { lambda: true, argTy, retTy: lam.retTy, code, compiled };
}

/** FAILWITH: `script_rejected` with the value in Optimized form. */
export function failwith(m: Machine, loc: number, t: Ty): never {
  const v = m.stack[m.stack.length - 1];
  const w = unparseData(t, v, "Optimized", { gas: m.gas });
  throw scriptRejected.error({ location: loc, with: w });
}

// ---------------------------------------------------------------- data helpers

/** `parse_data` with the type checker's options. */
export function parseDataWith(ctx: ScriptContext, t: Ty, node: Micheline, opts: { legacy: boolean; locations?: WeakMap<object, number>; stackDepth?: number }): Value {
  return parseData(ctx, t, node, { legacy: opts.legacy, locations: opts.locations } as { legacy: boolean });
}

/** A value packed (PACK), unparsing and serialisation gas charged. */
export function pack(m: Machine, t: Ty, v: Value): Uint8Array {
  return packData(t, v, { gas: m.gas });
}

/** UNPACK. */
export function unpack(m: Machine, t: Ty, b: Uint8Array): Value {
  return unpackData(m.ctx, t, b);
}

/** Length of a Michelson string (ASCII). */
export function stringLength(s: string): number {
  return s.length;
}

/** Concatenation of byte sequences. */
export function concatBytes(items: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const b of items) n += b.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const b of items) {
    out.set(b, o);
    o += b.length;
  }
  return out;
}

/** SLICE: `Some` when `off < length` and `off + len <= length`. */
export function slice(s: string | Uint8Array, off: bigint, len: bigint): Value {
  const l = BigInt(s.length);
  if (off < l && off + len <= l) {
    return some(typeof s === "string" ? s.slice(Number(off), Number(off + len)) : s.slice(Number(off), Number(off + len)));
  }
  return null;
}

/** EDIV on naturals/integers/mutez (Euclidean: remainder ≥ 0). */
export function ediv(x: bigint, y: bigint): Value {
  if (y === 0n) return null;
  let q = x / y;
  let r = x % y;
  if (r < 0n) {
    r += y < 0n ? -y : y;
    q = y > 0n ? q - 1n : q + 1n;
  }
  return some([q, r]);
}

/** LSL: overflow beyond a 256-bit shift. */
export function lsl(x: bigint, y: bigint, loc: number): bigint {
  if (y > 256n) throw scriptOverflow.error({ location: loc });
  return x << y;
}
/** LSR: overflow beyond a 256-bit shift. */
export function lsr(x: bigint, y: bigint, loc: number): bigint {
  if (y > 256n) throw scriptOverflow.error({ location: loc });
  return x >> y;
}

/** Tez addition (tez.addition_overflow). */
export function tezAdd(x: bigint, y: bigint): bigint {
  return tAdd(x, y);
}
/** Tez subtraction (tez.subtraction_underflow). */
export function tezSub(x: bigint, y: bigint): bigint {
  return tSub(x, y);
}
/** MUL mutez × nat: overflow when the nat does not fit an int64, else tez.multiplication_overflow. */
export function tezMulNat(t: bigint, n: bigint, loc: number): bigint {
  if (n > (1n << 63n) - 1n) throw scriptOverflow.error({ location: loc });
  return tezMul(t, n);
}

/** BLS12-381 operations. */
export const bls = {
  g1Add: B.g1Add, g2Add: B.g2Add, frAdd: B.frAdd, g1Mul: B.g1Mul, g2Mul: B.g2Mul, frMul: B.frMul,
  g1Neg: B.g1Neg, g2Neg: B.g2Neg, frNeg: B.frNeg, frFromInt: B.frFromInt, frToInt: B.frToInt,
  pairingCheck: (pairs: readonly (readonly [Uint8Array, Uint8Array])[]): boolean => B.pairingCheck(pairs),
};

/** The hash function of a hashing instruction. */
export function hashFn(p: string): (b: Uint8Array) => Uint8Array {
  switch (p) {
    case "BLAKE2B": return H.blake2b;
    case "SHA256": return H.sha256;
    case "SHA512": return H.sha512;
    case "KECCAK": return H.keccak256;
    default: return H.sha3_256;
  }
}

/** HASH_KEY. */
export function hashKey(k: string): string {
  return formatPublicKeyHash(publicKeyHash(parsePublicKey(k)));
}

/** CHECK_SIGNATURE. */
export function checkSignature(k: string, sig: string, msg: Uint8Array): boolean {
  return checkSig(k, sig, msg);
}

/** Plaintext size of a chest (for OPEN_CHEST's cost). */
export function chestPlaintextSize(chest: Uint8Array): number {
  try {
    return tlPlaintextSize(chest);
  } catch {
    return 0;
  }
}

/** OPEN_CHEST: `Left bytes`, `Right false` (bogus cipher) or `Right true` (bogus opening). */
export function openChest(key: Uint8Array, chest: Uint8Array, time: bigint): Value {
  if (time > (1n << 62n) - 1n) return right(false);
  let r;
  try {
    r = tlOpenChest(key, chest, time);
  } catch {
    return right(false);
  }
  if ("ok" in r) return left(r.ok);
  if ("bogusCipher" in r) return right(false);
  return right(true);
}

/** The error of an instruction this node does not run. */
export function unsupported(loc: number, prim: string): TezosError {
  return saplingNotSupported.error({ location: loc, prim });
}

/** `invalid_syntactic_constant`. */
export function invalidSyntacticConstantError(loc: number, n: Micheline, form: string): TezosError {
  return invalidSyntacticConstant.error({ location: loc, expected_form: form, wrong_expression: n });
}

// ---------------------------------------------------------------- big maps

function keyHash(m: Machine, map: BigMap, k: Value): Uint8Array {
  return hashData(map.keyTy, k, m.gas);
}

/** GET on a big map: pending diff first, then the context. */
export function bigMapGet(m: Machine, map: BigMap, k: Value): Value | undefined {
  const h = keyHash(m, map, k);
  const d = map.diff.get(k) as Some | null | undefined;
  if (d !== undefined) return d === null ? undefined : d.some;
  if (map.id === undefined) return undefined;
  const node = m.ctx.bigMapGet(map.id, h);
  if (node === undefined) return undefined;
  return parseData(m.ctx, map.valueTy, node, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
}

/** GET_AND_UPDATE on a big map (the key hashed once). */
export function bigMapGetAndUpdate(m: Machine, map: BigMap, k: Value, v: Some | null): [Value | undefined, BigMap] {
  const h = keyHash(m, map, k);
  const d = map.diff.get(k) as Some | null | undefined;
  let old: Value | undefined;
  if (d !== undefined) old = d === null ? undefined : d.some;
  else if (map.id !== undefined) {
    const node = m.ctx.bigMapGet(map.id, h);
    old = node === undefined ? undefined : parseData(m.ctx, map.valueTy, node, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  }
  return [old, { ...map, diff: map.diff.set(k, v) }];
}

/** MEM on a big map. */
export function bigMapMem(m: Machine, map: BigMap, k: Value): boolean {
  const h = keyHash(m, map, k);
  const d = map.diff.get(k);
  if (d !== undefined) return d !== null;
  if (map.id === undefined) return false;
  return m.ctx.bigMapMem(map.id, h);
}

/** UPDATE on a big map: a new pending change (`Some v` binds, `None` removes, as `BigMap.diff` keeps them). */
export function bigMapUpdate(m: Machine, map: BigMap, k: Value, v: Some | null): BigMap {
  keyHash(m, map, k);
  return { ...map, diff: map.diff.set(k, v) };
}

// ---------------------------------------------------------------- entrypoints and contracts

/** `find_entrypoint`: the type at entrypoint `name` (`""` = default) and its Left/Right path. */
export function findEntrypoint(full: Ty, rootName: string | undefined, name: string): { ty: Ty; path: ("Left" | "Right")[] } {
  const ep = name === "" ? "default" : name;
  if (ep.length > 31) throw entrypointNameTooLong.error({ name: ep });
  if (rootName !== undefined && rootName === ep) return { ty: full, path: [] };
  const find = (t: Ty): { ty: Ty; path: ("Left" | "Right")[] } | undefined => {
    if (t.prim !== "or") return undefined;
    const [l, r] = t.args;
    if (l.field === ep) return { ty: l, path: ["Left"] };
    if (r.field === ep) return { ty: r, path: ["Right"] };
    const fl = find(l);
    if (fl !== undefined) return { ty: fl.ty, path: ["Left", ...fl.path] };
    const fr = find(r);
    if (fr !== undefined) return { ty: fr.ty, path: ["Right", ...fr.path] };
    return undefined;
  };
  const f = find(full);
  if (f !== undefined) return f;
  if (ep === "default") return { ty: full, path: [] };
  throw noSuchEntrypoint.error({ entrypoint: ep });
}

/** `merge_types ~legacy:false` in the gas monad (a merge_cycle per node, also when it fails; no error serialised). */
function tryMerge(gas: import("../context.ts").GasMeter, a: Ty, b: Ty): boolean {
  try {
    mergeTypes(gas, false, undefined, a, b);
    return true;
  } catch (e) {
    if (e instanceof TezosError) return false;
    throw e;
  }
}

/** CONTRACT: `Some contract` when the address has the entrypoint with type `t`. */
export function contract(m: Machine, t: Ty, a: Address, instrEp: string): Value {
  let ep: string;
  if (isDefaultEntrypoint(a.entrypoint)) ep = instrEp;
  else if (instrEp === "default") ep = a.entrypoint;
  else return null;
  const address = a.address;
  if (!address.startsWith("KT1")) {
    if (ep !== "default") {
      m.gas.consume(parseInstrCycle);
      return null;
    }
    m.gas.consume(mergeCycle);
    if (!sameType(t, { prim: "unit", args: [] })) return null;
    return some({ address, entrypoint: "", paramTy: t } as TypedContract);
  }
  const full = m.ctx.contractParameterType(address);
  if (full === undefined) return null;
  const rootName = full.field;
  let found: { ty: Ty };
  try {
    found = findEntrypoint(full, rootName, ep);
  } catch (e) {
    if (e instanceof TezosError) return null;
    throw e;
  }
  if (tryMerge(m.gas, found.ty, t)) return some({ address, entrypoint: ep === "default" ? "" : ep, paramTy: t } as TypedContract);
  if (ep === "default" && rootName === "root" && tryMerge(m.gas, full, t)) return some({ address, entrypoint: "root", paramTy: t } as TypedContract);
  return null;
}

/** TRANSFER_TOKENS. */
export function transfer(m: Machine, amount: bigint, c: TypedContract, v: Value): Operation {
  const { node, diff } = emittedValue(m, c.paramTy, v);
  return {
    op: "transaction", nonce: m.ctx.freshInternalNonce(), amount, destination: c.address,
    entrypoint: isDefaultEntrypoint(c.entrypoint) ? "default" : c.entrypoint, parameters: node, lazyStorageDiff: diff,
  };
}

/**
 * A value an emitted operation carries, as Octez's `transfer`/`create_contract` make it: its big
 * maps collected and moved to fresh temporary ids (`extract_lazy_storage_diff ~temporary:true`),
 * then unparsed (Optimized) and stripped of locations, all with gas.
 */
function emittedValue(m: Machine, t: Ty, v: Value): { node: Micheline; diff: LazyStorageDiffItem[] | undefined } {
  const toDuplicate = collectLazyStorage(t, v, m.gas);
  const env = { gas: m.gas, freshBigMapId: () => m.ctx.freshTemporaryBigMapId() };
  const ex = extractLazyStorageDiff(env, t, v, { mode: "Optimized", temporary: true, toDuplicate, toUpdate: new Set() });
  const node = unparseData(t, ex.value, "Optimized", { gas: m.gas });
  m.gas.consume(stripLocationsCost(node));
  return { node, diff: ex.diff };
}

/** A checked inner script of CREATE_CONTRACT. */
export interface InnerScript {
  readonly parts: ToplevelParts;
  readonly paramTy: Ty;
  readonly storageTy: Ty;
  readonly code: Micheline;
}

/** Checks the literal script of CREATE_CONTRACT (in the same gas and legacy mode). */
export function checkInnerScript(c: Checker, node: Micheline, depth: number): InnerScript {
  const parsed: ParsedScript = parseScriptNode(c.ctx, node, { legacy: c.opts.legacy, typeLogger: c.opts.typeLogger, depth, inner: true });
  const parts = parsed.parts as ToplevelParts;
  const views: Micheline[] = [];
  for (const [name, v] of parsed.viewNodes) views.push({ prim: "view", args: [{ string: name }, v.input, v.output, v.code] });
  const param = unparseTyAnnot(parsed.paramTy);
  const paramWithRoot = parsed.rootName === undefined ? param : ({ ...(param as object), annots: [...(((param as { annots?: string[] }).annots) ?? []), "%" + parsed.rootName] } as unknown as Micheline);
  const bareParam = parsed.rootName === undefined ? param : paramWithRoot;
  const code: Micheline = [
    { prim: "parameter", args: [bareParam] },
    { prim: "storage", args: [unparseTyAnnot(parsed.storageTy)] },
    { prim: "code", args: [parts.code] },
    ...views,
  ];
  return { parts, paramTy: parsed.paramTy, storageTy: parsed.storageTy, code };
}

/** CREATE_CONTRACT: the origination and the new address. */
export function createContract(m: Machine, inner: InnerScript, delegate: string | null, credit: bigint, init: Value): [Operation, string] {
  unparseTy(inner.paramTy, "Optimized", m.gas);
  unparseTy(inner.storageTy, "Optimized", m.gas);
  const { node, diff } = emittedValue(m, inner.storageTy, init);
  const address = m.ctx.freshContractAddress();
  const op: Operation = { op: "origination", nonce: m.ctx.freshInternalNonce(), credit, delegate, address, code: inner.code, storage: node, lazyStorageDiff: diff };
  return [op, address];
}

/** `parse_view_name`. */
export function parseViewName(c: Checker, n: Micheline): string {
  const loc = c.loc(n);
  if (typeof n !== "object" || n === null || Array.isArray(n) || !("string" in n)) throw invalidKindError(n, loc, ["string"]);
  const v = (n as { string: string }).string;
  if (v.length > 31) throw viewNameTooLong.error({ name: v });
  c.ctx.gas.consume(checkPrintable(v));
  if (!isAllowedString(v)) {
    throw badViewName.error({ loc }).withContext(
      invalidSyntacticConstant.create({ location: loc, expected_form: "string [a-zA-Z0-9_.%@] and the maximum string length of 31 characters", wrong_expression: n }),
    );
  }
  return v;
}

/**
 * VIEW (Octez `IView`): runs the named view of the target contract, `None` when the target has no
 * script, no such view, or a view of other types. Gas as Octez: `Contract.get_script` (charged
 * by `ctx.contractScript`, implicit accounts too), the target's `parse_script ~legacy:true`
 * (global constants, type checking of its code without its views, typed IR size, storage), the
 * view's lookup, the type checking of that view only (`parse_view_returning`), then the merges
 * of its output type with VIEW's and of its input stack with `pair input storage`.
 */
export function view(m: Machine, self: Instr, name: string, inTy: Ty, outTy: Ty): void {
  const st = m.stack;
  const input = st.pop() as Value;
  const target = st.pop() as Address;
  const none = (): void => {
    st.push(null);
    m.log(self.loc, self.aft);
  };
  const script = m.ctx.contractScript(target.address);
  if (script === undefined) return none();
  const parsed = parseScript(m.ctx, expandStoredConstants(m.ctx, script.code), { legacy: true, typecheckViews: false });
  const storage = parseData(m.ctx, parsed.storageTy, script.storage, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  m.gas.consume(G.viewGet(name, parsed.viewNodes.size));
  const v = typecheckView(m.ctx, parsed, name);
  if (v === undefined) return none();
  const aftTy = v.lambda.aft!.ty;
  const befTy = v.lambda.bef!.ty;
  const expectedBef: Ty = { prim: "pair", args: [bare(inTy), bare(parsed.storageTy)] };
  if (!viewTypesMerge(m.gas, aftTy, outTy) || !viewTypesMerge(m.gas, befTy, expectedBef)) return none();
  m.ks.push({ k: K.VIEW_SOME, loc: self.loc, aft: self.aft, traced: m.traced, code: m.code, pc: m.pc });
  m.ks.push({ k: K.RETURN, saved: st });
  m.ks.push({ k: K.VIEW_EXIT, sc: m.sc, traced: m.traced });
  // the view runs as the viewed contract, called by this one (SENDER); SOURCE stays the operation's
  m.sc = { ...m.sc, sender: m.sc.self, self: target.address, amount: 0n };
  m.traced = false;
  m.stack = [[input, storage]];
  m.code = v.lambda.body;
  m.pc = 0;
}

/** `t` without the field annotation it carries as a child (`pair_t` children of VIEW's own pair). */
function bare(t: Ty): Ty {
  return t.field === undefined ? t : { ...t, field: undefined };
}

/**
 * `merge_types ~legacy:true` run in the gas monad, as VIEW uses it (a mismatch gives `None`, the
 * gas spent stays spent). Per node, in Octez's order: a `merge_cycle`; nodes of different
 * constructors fail after serializing both sub-types for the error (`serialize_ty_for_error`:
 * `unparse_ty`, then `strip_locations`); same constructors compare their type sizes first
 * (`Type_size.merge` fails without serializing), then their memo sizes (sapling), then their
 * children (a map's value before its key). Annotations never fail in legacy mode.
 */
function viewTypesMerge(gas: import("../context.ts").GasMeter, a: Ty, b: Ty): boolean {
  gas.consume(mergeCycle);
  if (a.prim !== b.prim || a.args.length !== b.args.length) {
    gas.consume(stripLocationsCost(unparseTy(a, "Optimized", gas)));
    gas.consume(stripLocationsCost(unparseTy(b, "Optimized", gas)));
    return false;
  }
  if (typeSize(a) !== typeSize(b)) return false;
  if (a.memoSize !== b.memoSize) return false;
  const order = a.prim === "map" || a.prim === "big_map" ? [1, 0] : a.args.map((_, i) => i);
  for (const i of order) if (!viewTypesMerge(gas, a.args[i]!, b.args[i]!)) return false;
  return true;
}

/** The size a type's metadata carries (`Type_size`: its number of nodes). */
function typeSize(t: Ty): number {
  let n = 1;
  for (const c of t.args) n += typeSize(c);
  return n;
}

export { parseViewTy, parseParameterTy };
