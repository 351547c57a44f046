/**
 * The {@link ScriptContext} of Hangzhou: what the Michelson type checker and interpreter read
 * from a {@link ProtoContext} while a script runs, with the gas Octez charges for each read
 * (`Storage_costs.read_access` of carbonated storage, milligas) taken from the operation's gas.
 *
 * | method | Octez | gas here (milligas) |
 * |---|---|---|
 * | `gas.consume` | `Gas.consume` | as given; `gas_exhausted.operation` when short |
 * | `balance()` | `Contract.get_balance_carbonated` | read_access(4, 8) |
 * | `contractParameterType` | `parse_contract_for_script` (originated) | code lookup: read_access(2, 0) [+ read_access(2, len) + 2 × 20·bytes deserialisation (`Code.find`, then `force_decode_in_context`)] |
 * | `bigMapTypes` | `Big_map.exists` | read_bytes_cost 0 |
 * | `bigMapGet` | `Big_map.get_opt` | read_access(2, 0) [+ read_access(2, len) + deserialized_cost(value)] |
 * | `bigMapMem` (extra) | `Big_map.mem` | read_access(2, 0) |
 * | `globalConstant` | `Global_constants_storage.get` | read_access(2, 0) [+ read_access(2, len)] |
 * | `votingPower` | `Vote.get_voting_power` | read_access(4, 4) |
 * | `totalVotingPower` | `Vote.get_total_voting_power` | read_access(2, 4) |
 * | `contractScript` (extra, `VIEW`) | `Contract.get_script`, then `parse_script`'s decoding | per part: read_access(2, 0) [+ read_access(2, len) + 2 × 20·bytes] |
 * | `freshInternalNonce` | `fresh_internal_nonce` | none; `too_many_internal_operations` from 65 535 |
 * | `freshContractAddress` | `fresh_contract_from_current_nonce` | none; `undefined_operation_nonce` without an origination nonce |
 * | `freshTemporaryBigMapId` | `Lazy_storage.fresh ~temporary:true` | none |
 *
 * The counters live in the {@link ProtoContext} (`internalNonce`, `temporaryBigMapId`,
 * `originationNonce`), so they follow its backtracking. A run outside an operation
 * (`run_code`, `trace_code`) calls `pc.initOriginationNonce(new Uint8Array(32))` first as Octez
 * does with `Operation_hash.zero`, and usually `pc.setGasLimit(limit)`.
 *
 * @example
 * ```ts
 * const ctx = makeScriptContext(pc, {
 *   self: "KT1…", sender: "tz1…", source: "tz1…", amount: 0n,
 *   now: BigInt(pc.timestamp), level: BigInt(pc.level.level), chainId: "NetXdQprcVkpaWU",
 * });
 * const { storage, operations } = execute(ctx, parseScript(ctx, code, { legacy: true }), { entrypoint: "default", parameter, storage });
 * ```
 * @module
 */
import { B58, b58decode } from "../../../encoding/base58.ts";
import { decodeBinary } from "../../../encoding/codec.ts";
import { lazyExpression } from "../../../encoding/hangzhou/script.ts";
import { decodeMicheline, type Micheline } from "../../../encoding/micheline.ts";
import type { GasMeter, ScriptContext } from "../../../michelson/context.ts";
import type { Ty } from "../../../michelson/ty.ts";
import { parseParameterTy, parseTy } from "../../../michelson/data/parse-type.ts";
import { protoError } from "../proto-error.ts";
import { readAccessCost } from "../apply/gas.ts";
import { findBigMapValueBytes } from "../storage/big-map.ts";
import { freshContractFromCurrentNonce, getBalance } from "../storage/contract.ts";
import { findGlobalConstant } from "../storage/global-constants.ts";
import { bigMapPath, carbonatedPaths, decodeInt32, isImplicit } from "../storage/layout.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { listingsSize, votingPower } from "../storage/vote.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { toHex } from "../../../encoding/hex.ts";
import { deserializedCost } from "../../../michelson/gas/script.ts";

/** `too_many_internal_operations` (permanent): more than 65 535 internal operations in a block. */
export const tooManyInternalOperations: ErrorDefinition = protoError({
  id: "too_many_internal_operations",
  kind: "permanent",
  title: "Too many internal operations",
  description: "A transaction exceeded the hard limit of internal operations it can emit",
});

/** Highest internal nonce (`fresh_internal_nonce` fails from here). */
export const MAX_INTERNAL_NONCE = 65_535;

/** The execution step of a script (Octez `step_constants` plus the block's `NOW`/`LEVEL`). */
export interface ScriptStep {
  /** The running contract (`SELF`). */
  readonly self: string;
  /** `SENDER` (Octez's `source` of the step: the contract or account that called). */
  readonly sender: string;
  /** `SOURCE` (Octez's `payer`: the implicit account that signed the operation). */
  readonly source: string;
  /** `AMOUNT`, mutez. */
  readonly amount: bigint;
  /** `BALANCE` override, mutez (run_code's `balance`); the context's balance of `self` otherwise. */
  readonly balance?: bigint;
  /** `NOW`, seconds. */
  readonly now: bigint;
  /** `LEVEL`. */
  readonly level: bigint;
  /** `CHAIN_ID`, Base58Check `Net…`. */
  readonly chainId: string;
  /** Whether scripts already on chain are being read (`legacy`). */
  readonly legacy?: boolean;
}

/** A contract's script as stored (code and storage) for the `VIEW` instruction. */
export interface StoredScriptParts {
  readonly code: Micheline;
  readonly storage: Micheline;
}

/** Hangzhou's script context, with the extra reads Octez's interpreter needs beyond {@link ScriptContext}. */
export interface HangzhouScriptContext extends ScriptContext {
  /** The protocol context it reads (and the apply layer writes). */
  readonly pc: ProtoContext;
  /** The step it was made with. */
  readonly step: ScriptStep;
  /** Whether big map `id` binds the key with hash `keyHash` (`Big_map.mem`, read_access(2, 0)). */
  bigMapMem(id: bigint, keyHash: Uint8Array): boolean;
  /** Code and storage of a contract (`Contract.get_script`, charged), or `undefined` for an account without script. */
  contractScript(contract: string): StoredScriptParts | undefined;
  /** The same context for another step (a view runs with `self` = the viewed contract, `sender` = caller, amount 0). */
  withStep(step: Partial<ScriptStep>): HangzhouScriptContext;
}

/** The gas meter of the operation being applied (milligas, over `pc.consumeGas`). */
export function operationGasMeter(pc: ProtoContext): GasMeter {
  return {
    consume(milligas: number): void {
      if (!Number.isSafeInteger(milligas) || milligas < 0) {
        // saturated costs (Octez's Saturation_repr) exhaust any limit
        if (milligas === Number.MAX_SAFE_INTEGER || milligas === Infinity) {
          pc.consumeGas(pc.remainingOperationGas + 1n);
          return;
        }
        throw new RangeError(`gas cost must be a non-negative safe integer, got ${milligas}`);
      }
      pc.consumeGas(BigInt(milligas));
    },
    remaining(): number {
      if (pc.unlimitedOperationGas) return Number.MAX_SAFE_INTEGER;
      const r = pc.remainingOperationGas;
      return r > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(r);
    },
  };
}

/** Reads a carbonated script part (`code` or `storage`) charging Octez's gas; the lazy bytes' payload length too. */
function readScriptPart(pc: ProtoContext, contract: string, name: "code" | "storage"): { expr: Micheline; bytes: number } | undefined {
  const { data, len } = carbonatedPaths(contract, name);
  pc.consumeGas(readAccessCost(2, 0));
  const b = pc.find(data);
  if (b === undefined) return undefined;
  pc.consumeGas(readAccessCost(2, decodeInt32(pc.get(len))));
  return { expr: decodeBinary(lazyExpression, b), bytes: b.length - 4 };
}

/** The `parameter` section of a script and the root entrypoint name written on the `parameter` keyword (`parse_toplevel`, legacy). */
export function parameterSection(code: Micheline): { node: Micheline; rootName?: string } | undefined {
  if (!Array.isArray(code)) return undefined;
  for (const f of code as readonly Micheline[]) {
    const p = f as { prim?: string; args?: readonly Micheline[]; annots?: readonly string[] };
    if (p.prim === "parameter" && p.args?.length === 1) {
      const annots = p.annots ?? [];
      const root = annots.length === 1 && annots[0]!.startsWith("%") && annots[0]!.length > 1 ? annots[0]!.slice(1) : undefined;
      return root === undefined ? { node: p.args[0]! } : { node: p.args[0]!, rootName: root };
    }
  }
  return undefined;
}

/**
 * A {@link ScriptContext} over `pc` for one execution step (see the module documentation for
 * what each read costs).
 */
export function makeScriptContext(pc: ProtoContext, step: ScriptStep): HangzhouScriptContext {
  if (typeof step.amount !== "bigint" || step.amount < 0n) throw new RangeError("makeScriptContext: amount must be a non-negative bigint");
  b58decode(B58.chainId, step.chainId); // throws on a malformed chain id
  const gas = operationGasMeter(pc);
  const ctx: HangzhouScriptContext = {
    pc,
    step,
    gas,
    legacy: step.legacy ?? false,
    self: step.self,
    sender: step.sender,
    source: step.source,
    amount: step.amount,
    now: step.now,
    level: step.level,
    chainId: step.chainId,
    balanceOf(contract: string): bigint {
      pc.consumeGas(readAccessCost(4, 8));
      return contract === step.self && step.balance !== undefined ? step.balance : getBalance(pc, contract);
    },
    contractParameterType(kt1: string): Ty | undefined {
      if (isImplicit(kt1)) return undefined;
      const code = readScriptPart(pc, kt1, "code");
      if (code === undefined) return undefined;
      // Storage.Contract.Code.find charges the lazy code's decoding, then parse_contract_for_script
      // decodes it again (force_decode_in_context on the same undecoded bytes)
      pc.consumeGas(2n * 20n * BigInt(code.bytes));
      const section = parameterSection(code.expr);
      if (section === undefined) return undefined;
      const t = parseParameterTy(section.node, { legacy: true, gas });
      return section.rootName !== undefined && t.field === undefined ? { ...t, field: section.rootName } : t;
    },
    bigMapTypes(id: bigint): { keyTy: Ty; valueTy: Ty } | undefined {
      pc.consumeGas(100_000n); // Gas_limit_repr.read_bytes_cost 0: read_base_weight, 100 gas
      const k = pc.find(bigMapPath(id, "key_type"));
      if (k === undefined) return undefined;
      const v = pc.get(bigMapPath(id, "value_type"));
      return { keyTy: parseTy(decodeMicheline(k), { legacy: true, gas }), valueTy: parseTy(decodeMicheline(v), { legacy: true, gas }) };
    },
    bigMapGet(id: bigint, keyHash: Uint8Array): Micheline | undefined {
      pc.consumeGas(readAccessCost(2, 0));
      const b = findBigMapValueBytes(pc, id, keyHash);
      if (b === undefined) return undefined;
      pc.consumeGas(readAccessCost(2, decodeInt32(pc.get(bigMapPath(id, "contents", toHex(keyHash), "len")))));
      const value = decodeMicheline(b);
      // Storage.Big_map.Contents.find charges the value's deserialisation (Script_repr.deserialized_cost)
      pc.consumeGas(BigInt(deserializedCost(value)));
      return value;
    },
    bigMapMem(id: bigint, keyHash: Uint8Array): boolean {
      pc.consumeGas(readAccessCost(2, 0));
      return pc.mem(bigMapPath(id, "contents", toHex(keyHash), "data"));
    },
    globalConstant(hash: string): Micheline | undefined {
      let h: Uint8Array;
      try {
        h = b58decode(B58.scriptExprHash, hash);
      } catch {
        return undefined;
      }
      return findGlobalConstant(pc, h);
    },
    votingPower(keyHash: string): bigint {
      pc.consumeGas(readAccessCost(4, 4));
      return BigInt(votingPower(pc, keyHash));
    },
    totalVotingPower(): bigint {
      pc.consumeGas(readAccessCost(2, 4));
      return BigInt(listingsSize(pc));
    },
    contractScript(contract: string): StoredScriptParts | undefined {
      if (isImplicit(contract)) {
        pc.consumeGas(2n * readAccessCost(2, 0));
        return undefined;
      }
      const code = readScriptPart(pc, contract, "code");
      const storage = readScriptPart(pc, contract, "storage");
      if (code === undefined || storage === undefined) return undefined;
      // Contract.get_script charges both lazy expressions' decoding (Code.find, Storage.find), then
      // VIEW's parse_script decodes them again (force_decode_in_context on the same bytes)
      pc.consumeGas(2n * 20n * BigInt(code.bytes + storage.bytes));
      return { code: code.expr, storage: storage.expr };
    },
    freshInternalNonce(): number {
      if (pc.internalNonce >= MAX_INTERNAL_NONCE) throw tooManyInternalOperations.error();
      return pc.internalNonce++;
    },
    freshContractAddress(): string {
      return freshContractFromCurrentNonce(pc);
    },
    freshTemporaryBigMapId(): bigint {
      const id = pc.temporaryBigMapId;
      pc.temporaryBigMapId = id - 1n;
      return id;
    },
    withStep(next: Partial<ScriptStep>): HangzhouScriptContext {
      return makeScriptContext(pc, { ...step, ...next });
    },
  };
  return ctx;
}

/** `NOW` of scripts in a block (`Script_timestamp.now`): the predecessor's timestamp + minimal_block_delay. */
export function scriptNow(pc: ProtoContext): bigint {
  return BigInt(pc.predecessorTimestamp) + pc.constants.minimal_block_delay;
}

/** `LEVEL` of scripts in a block: the level being applied. */
export function scriptLevel(pc: ProtoContext): bigint {
  return BigInt(pc.level.level);
}
