/**
 * A small octez-client stand-in over the Hangzhou chain fixture (tests only), enough to replay the
 * step-by-step scenarios of the Octez python tests (onchain-scenarios.json): originate and transfer
 * (from implicit accounts, or from a `manager.tz`-like contract through its `%do` lambda entry as
 * octez-client's Managed_contract builds it), pending operations baked by a chosen baker, the
 * client's simulation of a failing operation (applied on a copy of the head's context and never
 * injected), storages printed as `get contract storage` prints them (Readable, unwrapped), balances,
 * delegates, and a pending-operation counter per source.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import type { ManagerOperation, Origination, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { formatPublicKeyHash, publicKeyHash, publicKeyOf, type SecretKey } from "../../lib/crypto/keys.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { canonicalLocations } from "../../lib/michelson/location.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { unparseTy } from "../../lib/michelson/data/parse-type.ts";
import { unparseData } from "../../lib/michelson/data/unparse-data.ts";
import { findEntrypoint } from "../../lib/michelson/script/entrypoints.ts";
import { parseScript } from "../../lib/michelson/script/script.ts";
import { parseAndExpand, printMicheline, type SourceLocation } from "../../lib/michelson/text/mod.ts";
import { bakingRightsOwner } from "../../lib/protocols/hangzhou/rights.ts";
import { getBalance, getCounter, getScript, getScriptCodeBytes } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { contractDelegate } from "../../lib/protocols/hangzhou/storage/roll.ts";
import { contextRightsSource } from "../../lib/protocols/hangzhou/storage/rights-source.ts";
import { helperContextOn, scriptParameterType } from "../../lib/rpc/services/hangzhou/scripts-helpers.ts";
import type { Block } from "../../lib/shell/chain.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import { type Account, BOOTSTRAP, forge, freshAccount, managerReceipts, preapplyInMempool, receiptJson } from "./manager-fixture.ts";

/** Folder of the reference contracts. */
export const CONTRACTS = fileURLToPath(new URL("../vectors/michelson/contracts/", import.meta.url));
const HARD_GAS = 1_040_000n;
const HARD_STORAGE = 60_000n;

/** Tez text ("10.001") to mutez. */
export function mutezOf(tez: string): bigint {
  const [i, f = ""] = tez.replace(/^\+/, "").split(".");
  return BigInt(i!) * 1_000_000n + BigInt((f + "000000").slice(0, 6));
}

/** A failed simulation: the error ids of the trace (outermost first) and the raw JSON. */
export class SimulationFailed extends Error {
  ids: string[];
  errors: Json[];
  constructor(ids: string[], errors: Json[]) {
    super(`simulation failed: ${ids.join(", ")}`);
    this.ids = ids;
    this.errors = errors;
  }
}

/** What the scenario asked to send. */
export interface SendSpec {
  from: string;
  fee?: bigint;
  gasLimit?: bigint;
  /** Client `--burn-cap` (tez text); the burn of the applied operation must not exceed it. */
  burnCap?: string;
}

/** One applied operation of the last baked block. */
export interface AppliedOp {
  result: any;
  burn: bigint;
  burnCap: bigint;
}

/** The client stand-in. */
export class ScenarioClient {
  h: Awaited<ReturnType<typeof hangzhouChain>>;
  /** alias -> address (bootstrap accounts, generated keys, originated contracts). */
  aliases = new Map<string, string>();
  keys = new Map<string, Account>();
  pending: { bytes: Uint8Array; burnCap: bigint; source: string }[] = [];
  /** Receipts (operation_result JSON) of the operations of the last baked block. */
  lastApplied: AppliedOp[] = [];
  /** The block in which the last operation was baked. */
  lastBlock: Block | undefined;
  private nextSeed = 1;

  private constructor(h: Awaited<ReturnType<typeof hangzhouChain>>) {
    this.h = h;
    BOOTSTRAP.forEach((a, i) => {
      this.aliases.set(`bootstrap${i + 1}`, a.pkh);
      this.keys.set(a.pkh, a);
    });
  }

  /** A client on a fresh sandbox chain with `blocks` blocks (default 1) baked on top of the activation. */
  static async create(blocks = 1): Promise<ScenarioClient> {
    const h = await hangzhouChain();
    for (let i = 0; i < blocks; i++) await h.bake();
    return new ScenarioClient(h);
  }

  /** The protocol context of the next block on the head. */
  pc() {
    return this.h.protoAt(this.h.chain.head);
  }

  /** The address of an alias, address, or the alias itself when it is an address. */
  address(name: string): string {
    const a = this.aliases.get(name);
    if (a !== undefined) return a;
    if (/^(tz[123]|KT1)[1-9A-HJ-NP-Za-km-z]{33}$/.test(name)) return name;
    throw new Error(`unknown alias ${name}`);
  }

  /** `gen keys <alias>`: a fresh ed25519 account. */
  genKey(alias: string): Account {
    const a = freshAccount("ed25519", 100 + this.nextSeed++);
    this.aliases.set(alias, a.pkh);
    this.keys.set(a.pkh, a);
    return a;
  }

  /** The next counter of `pkh`, counting its pending operations. */
  private counter(pkh: string): bigint {
    const pendingOf = this.pending.filter((p) => p.source === pkh).length;
    return getCounter(this.pc(), pkh) + 1n + BigInt(pendingOf);
  }

  /** The signing account of an implicit address. */
  private account(pkh: string): Account {
    const a = this.keys.get(pkh);
    if (a === undefined) throw new Error(`no key for ${pkh}`);
    return a;
  }

  /**
   * Simulates `content` (forged and signed by its source) as octez-client does before injecting:
   * applied after the pending operations on the head's context, nothing stored; throws {@link SimulationFailed} when it does not
   * apply, otherwise queues it for the next bake.
   */
  async send(content: ManagerOperation, burnCap: string | undefined, expectFailure = false): Promise<any> {
    const acc = this.account(content.source);
    const bytes = await forge(acc.sk, this.h.chain.head.hash, [content]);
    let results: any[];
    try {
      // As a node's mempool does: the operation applied after the pending ones, on the head.
      const all = await preapplyInMempool(this.h, [...this.pending.map((p) => p.bytes), bytes]);
      results = receiptJson(all.at(-1)!) as any[];
    } catch (e) {
      if (e instanceof TezosError) throw new SimulationFailed(e.trace.map((i) => i.id), e.trace.map((i) => i.id as Json));
      throw e;
    }
    const r = results[0].operation_result;
    const internal: any[] = results[0].internal_operation_results ?? [];
    const failedInternal = internal.find((i) => i.result.status !== "applied");
    if (r.status !== "applied" || failedInternal !== undefined) {
      const errors: Json[] = [...(r.errors ?? []), ...internal.flatMap((i) => i.result.errors ?? [])];
      throw new SimulationFailed(errors.map((e: any) => String(e.id).replace(/^proto\.011-PtHangz2\./, "")), errors);
    }
    if (expectFailure) throw new Error(`operation applied but a failure was expected: ${JSON.stringify(r)}`);
    this.pending.push({ bytes, burnCap: burnCap === undefined ? 0n : mutezOf(burnCap), source: content.source });
    return results[0];
  }

  /** Bakes the pending operations with `baker` (its first priority at this level), checking each applied within its burn cap. */
  async bake(baker = "bootstrap1"): Promise<Block> {
    const pkh = this.address(baker);
    const pc = this.pc();
    const src = contextRightsSource(pc);
    let priority = 0;
    while (formatPublicKeyHash(publicKeyHash(bakingRightsOwner(src, pc.level, priority))) !== pkh) priority++;
    const ops = this.pending;
    this.pending = [];
    // The python tests bake without endorsements (no endorsement deposits move balances).
    const hash = await this.h.bake({ priority, endorse: false, managers: ops.map((o) => o.bytes) });
    const block = this.h.chain.block(hash)!;
    const receipts = managerReceipts(block);
    this.lastApplied = [];
    receipts.forEach((rc, i) => {
      const json = (receiptJson(rc) as any)[0];
      const r = json.operation_result;
      if (r.status !== "applied") throw new Error(`baked operation not applied: ${JSON.stringify(r)}`);
      const all = [r, ...(json.internal_operation_results ?? []).map((x: any) => x.result)];
      let burn = 0n;
      for (const x of all) {
        burn += BigInt(x.paid_storage_size_diff ?? "0") * 250n;
        burn += BigInt((x.originated_contracts ?? []).length) * 257n * 250n;
        if (x.allocated_destination_contract === true) burn += 257n * 250n;
      }
      const applied = { result: json, burn, burnCap: ops[i]!.burnCap };
      if (burn > applied.burnCap) throw new Error(`burn ${burn} above the burn cap ${applied.burnCap}`);
      this.lastApplied.push(applied);
    });
    if (ops.length > 0) this.lastBlock = block;
    return block;
  }

  /** Parses a script file or text as the client does (macros expanded), with the source location of each node. */
  readScript(fileOrText: { file?: string; script?: string }) {
    const text = fileOrText.file !== undefined ? readFileSync(CONTRACTS + fileOrText.file, "utf8") : fileOrText.script!;
    const locations = new WeakMap<object, SourceLocation>();
    const code = parseAndExpand(text, { locations });
    return { code, locations, text };
  }

  /** `originate contract <alias> transferring <balance> from <sender> running <script> --init <storage>`. */
  async originate(alias: string, code: Micheline, storage: string, balanceTez: string, sender: string, burnCap?: string, expectFailure = false): Promise<void> {
    const source = this.address(sender);
    const op: Origination = {
      kind: "origination",
      source,
      fee: 0n,
      counter: this.counter(source),
      gas_limit: HARD_GAS,
      storage_limit: HARD_STORAGE,
      balance: mutezOf(balanceTez),
      script: { code, storage: parseAndExpand(storage, { kind: "expression" }) },
    };
    const r = await this.send(op, burnCap, expectFailure);
    this.aliases.set(alias, r.operation_result.originated_contracts[0]);
  }

  /** The contracts originated by the internal operations of the last baked operation. */
  lastOriginated(): string[] {
    const last = this.lastApplied.at(-1);
    if (last === undefined) return [];
    return (last.result.internal_operation_results ?? []).flatMap((x: any) => x.result.originated_contracts ?? []);
  }

  /** `transfer <amount> from <from> to <to> [--arg] [--entrypoint]` (through `%do` when `from` is a contract). */
  async transfer(o: { from: string; to: string; amountTez: string; arg?: string; entrypoint?: string; gasLimit?: bigint; fee?: bigint; burnCap?: string; expectFailure?: boolean }): Promise<void> {
    const from = this.address(o.from);
    const to = this.address(o.to);
    const amount = mutezOf(o.amountTez);
    if (from.startsWith("KT1")) return this.transferFromManaged(from, to, amount, o);
    const entrypoint = o.entrypoint ?? "default";
    const parameters = o.arg === undefined && entrypoint === "default" ? undefined : { entrypoint, value: o.arg === undefined ? { prim: "Unit" } : parseAndExpand(o.arg, { kind: "expression" }) };
    const op: Transaction = {
      kind: "transaction",
      source: from,
      fee: o.fee ?? 0n,
      counter: this.counter(from),
      gas_limit: o.gasLimit === undefined || o.gasLimit > HARD_GAS ? HARD_GAS : o.gasLimit,
      storage_limit: HARD_STORAGE,
      amount,
      destination: to,
      ...(parameters === undefined ? {} : { parameters }),
    };
    await this.send(op, o.burnCap, o.expectFailure);
  }

  /** The manager key of a `manager.tz`-like contract (storage = key hash, or a pair starting with it). */
  managerOf(kt1: string): string {
    const text = this.storage(kt1);
    const m = /"(tz[123][1-9A-HJ-NP-Za-km-z]{33})"/.exec(text);
    if (m === null) throw new Error(`no manager key in ${text}`);
    return m[1]!;
  }

  /** The type of a contract's entrypoint, or undefined. */
  entrypointType(kt1: string, entrypoint: string): Micheline | undefined {
    const pc = this.pc();
    const script = getScript(pc, kt1);
    if (script === undefined) return undefined;
    const sc = helperContextOn(pc, this.h.chain.chainId, true);
    pc.setGasUnlimited();
    try {
      return unparseTy(findEntrypoint(scriptParameterType(sc, script.code, true), entrypoint).ty);
    } catch {
      return undefined;
    }
  }

  /** Octez Managed_contract: a `%do` call with a lambda that transfers, signed by the manager key. */
  private async transferFromManaged(kt1: string, to: string, amount: bigint, o: { arg?: string; entrypoint?: string; gasLimit?: bigint; fee?: bigint; burnCap?: string; expectFailure?: boolean }) {
    const entrypoint = o.entrypoint ?? "default";
    let lambda: string;
    if (!to.startsWith("KT1")) {
      lambda = `{ DROP ; NIL operation ;PUSH key_hash "${to}"; IMPLICIT_ACCOUNT;PUSH mutez ${amount} ;UNIT;TRANSFER_TOKENS ; CONS }`;
    } else {
      const t = this.entrypointType(to, entrypoint);
      if (t === undefined) throw new Error(`Contract ${to} has no entrypoint named ${entrypoint}`);
      const ty = printMicheline(t, { wrapped: true });
      const ep = entrypoint === "default" ? "" : `%${entrypoint}`;
      const isUnit = !Array.isArray(t) && (t as { prim?: string }).prim === "unit" && (t as { args?: unknown[] }).args === undefined;
      const arg = o.arg === undefined ? "Unit" : printMicheline(parseAndExpand(o.arg, { kind: "expression" }), { wrapped: true });
      lambda = isUnit
        ? `{ DROP ; NIL operation ;PUSH address "${to}"; CONTRACT ${ep} ${ty}; ASSERT_SOME;PUSH mutez ${amount} ;UNIT;TRANSFER_TOKENS ; CONS }`
        : `{ DROP ; NIL operation ;PUSH address "${to}"; CONTRACT ${ep} ${ty}; ASSERT_SOME;PUSH mutez ${amount} ;PUSH ${ty} ${arg};TRANSFER_TOKENS ; CONS }`;
    }
    await this.callDo(kt1, lambda, o);
  }

  /** Calls `%do` of `kt1` with `lambda`, from its manager key. */
  private async callDo(kt1: string, lambda: string, o: { gasLimit?: bigint; fee?: bigint; burnCap?: string; expectFailure?: boolean }) {
    const manager = this.managerOf(kt1);
    const op: Transaction = {
      kind: "transaction",
      source: manager,
      fee: o.fee ?? 0n,
      counter: this.counter(manager),
      gas_limit: o.gasLimit === undefined || o.gasLimit > HARD_GAS ? HARD_GAS : o.gasLimit,
      storage_limit: HARD_STORAGE,
      amount: 0n,
      destination: kt1,
      parameters: { entrypoint: "do", value: parseAndExpand(lambda, { kind: "expression" }) },
    };
    await this.send(op, o.burnCap, o.expectFailure);
  }

  /** `set delegate for <kt1> to <delegate>` / `withdraw delegate from <kt1>` through `%do` (or `%set_delegate`/`%remove_delegate`). */
  async setContractDelegate(kt1: string, delegate: string | undefined): Promise<void> {
    if (this.entrypointType(kt1, "do") !== undefined) {
      const lambda = delegate === undefined
        ? "{ DROP ; NIL operation ; NONE key_hash ; SET_DELEGATE ; CONS }"
        : `{ DROP ; NIL operation ; PUSH key_hash "${delegate}" ; SOME ; SET_DELEGATE ; CONS }`;
      return this.callDo(kt1, lambda, {});
    }
    const manager = this.managerOf(kt1);
    const op: Transaction = {
      kind: "transaction",
      source: manager,
      fee: 0n,
      counter: this.counter(manager),
      gas_limit: HARD_GAS,
      storage_limit: 0n,
      amount: 0n,
      destination: kt1,
      parameters: delegate === undefined
        ? { entrypoint: "remove_delegate", value: { prim: "Unit" } }
        : { entrypoint: "set_delegate", value: { string: delegate } },
    };
    await this.send(op, undefined);
  }

  /** `get contract storage for <c>`: the storage read with its type, Readable, printed unwrapped. */
  storage(name: string): string {
    const kt1 = this.address(name);
    const pc = this.pc();
    pc.setGasUnlimited();
    const script = getScript(pc, kt1);
    if (script === undefined) throw new Error(`${kt1} is not a smart contract`);
    const sc = helperContextOn(pc, this.h.chain.chainId, true);
    const parsed = parseScript(sc, script.code, { legacy: true });
    const v = parseData(sc, parsed.storageTy, script.storage, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
    return printMicheline(unparseData(parsed.storageTy, v, "Readable", { ctx: sc }));
  }

  /** The balance of an alias or address, in mutez. */
  balance(name: string): bigint {
    return getBalance(this.pc(), this.address(name));
  }

  /** The delegate of a contract, or null. */
  delegate(name: string): string | null {
    return contractDelegate(this.pc(), this.address(name)) ?? null;
  }

  /** `get contract script hash`: BLAKE2b-256 of the stored code's binary expression (without its length prefix). */
  scriptHash(name: string): string {
    return b58encode(B58.scriptExprHash, blake2b256(getScriptCodeBytes(this.pc(), this.address(name))!.subarray(4)));
  }

  /** The source location (1-based line, 0-based columns) of the node at canonical location `loc` of a script read by {@link readScript}. */
  static sourceOf(script: { code: Micheline; locations: WeakMap<object, SourceLocation> }, loc: number): SourceLocation | undefined {
    const locs = canonicalLocations(script.code);
    let found: SourceLocation | undefined;
    const visit = (n: Micheline): void => {
      if (found !== undefined) return;
      if (locs.get(n as object) === loc) {
        found = script.locations.get(n as object);
        return;
      }
      const kids = Array.isArray(n) ? (n as Micheline[]) : ((n as { args?: Micheline[] }).args ?? []);
      kids.forEach(visit);
    };
    visit(script.code);
    return found;
  }
}

/** The address of a secret key (for tests that sign with bootstrap keys). */
export function pkhOf(sk: SecretKey): string {
  return formatPublicKeyHash(publicKeyHash(publicKeyOf(sk)));
}
