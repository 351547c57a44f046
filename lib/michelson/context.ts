/**
 * What the Michelson type checker and interpreter ask of the chain (Octez `Raw_context` as seen
 * from `Script_ir_translator` and `Script_interpreter`). The protocol gives an implementation over
 * its context; `run_code`/`typecheck_*` give one over a block's context with the RPC's overrides.
 * Every method is synchronous (context reads are synchronous in this node). Reads charge the
 * storage access gas Octez's carbonated reads charge (`read_access` of the path and bytes read);
 * the interpreter charges only the instruction's own cost.
 * @module
 */
import type { Micheline } from "../encoding/micheline.ts";
import type { Ty } from "./ty.ts";

/** Gas of one operation, in milligas (1 gas = 1000 milligas). */
export interface GasMeter {
  /** Takes `milligas` (a non-negative integer); throws Hangzhou's `gas_exhausted.operation` when there is not enough left. */
  consume(milligas: number): void;
  /** Milligas left. */
  remaining(): number;
}

/** The chain as seen by a script: reads and the few counters the interpreter advances. */
export interface ScriptContext {
  readonly gas: GasMeter;
  /** `true` when scripts already on chain are being read (deprecated instructions allowed). */
  readonly legacy: boolean;

  // -- the execution step (Octez `step_constants`) --
  /** The contract running (`SELF`, `SELF_ADDRESS`). */
  readonly self: string;
  /** `SENDER`. */
  readonly sender: string;
  /** `SOURCE`. */
  readonly source: string;
  /** `AMOUNT`, mutez. */
  readonly amount: bigint;
  /** Balance of a contract, mutez: `BALANCE` asks for `self` (the amount included), `VIEW` for the viewed contract. */
  balanceOf(contract: string): bigint;
  /** `NOW`, seconds since the epoch. */
  readonly now: bigint;
  /** `LEVEL`. */
  readonly level: bigint;
  /** `CHAIN_ID` (Base58Check `Net…`). */
  readonly chainId: string;

  // -- reads --
  /**
   * The parameter type of an originated contract (`KT1…`) with its root field annotation, or
   * `undefined` when there is no such contract. Implicit accounts are `unit` and are not asked.
   */
  contractParameterType(kt1: string): Ty | undefined;
  /** A big map's key and value types, or `undefined` when the id is unknown. */
  bigMapTypes(id: bigint): { readonly keyTy: Ty; readonly valueTy: Ty } | undefined;
  /** The value bound to the key with script expression hash `keyHash` (32 bytes) in big map `id` (Optimized Micheline), or `undefined`. */
  bigMapGet(id: bigint, keyHash: Uint8Array): Micheline | undefined;
  /** Whether big map `id` binds the key with script expression hash `keyHash` (cheaper than a get, as Octez's `Big_map.mem`). */
  bigMapMem(id: bigint, keyHash: Uint8Array): boolean;
  /** Code and storage (Micheline, as stored) of an originated contract, for `VIEW`; `undefined` when there is none. */
  contractScript(kt1: string): { readonly code: Micheline; readonly storage: Micheline } | undefined;
  /** The registered global constant with this `expr…` hash, or `undefined`. */
  globalConstant(hash: string): Micheline | undefined;
  /** Rolls of a delegate's stake (`VOTING_POWER`); 0 for a key hash that is not a delegate. */
  votingPower(keyHash: string): bigint;
  /** Sum of the voting powers of all delegates (`TOTAL_VOTING_POWER`). */
  totalVotingPower(): bigint;

  // -- counters --
  /** The next internal operation nonce (`fresh_internal_nonce`). */
  freshInternalNonce(): number;
  /** The `KT1…` address of the next contract created by this operation (`fresh_contract_from_current_nonce`). */
  freshContractAddress(): string;
  /** A fresh temporary (negative) big map id. */
  freshTemporaryBigMapId(): bigint;
}
