/**
 * Hangzhou's manager operations (Octez `apply.ml`: `precheck_manager_contents`,
 * `check_manager_signature`, `apply_manager_contents_list`, `apply_manager_operation_content`;
 * `fees_storage.ml`): the batch, its precheck and signature; the contents themselves (reveals,
 * transactions, originations, delegations, global constants, and the internal operations
 * scripts emit) are applied by `./content.ts`.
 *
 * An operation is a batch of contents from one source, applied in two stages:
 * 1. **Precheck**, every content in order: its gas limit is taken from the block
 *    (`gas_limit_too_high`, `gas_exhausted.block`), its storage limit bounded
 *    (`storage_limit_too_high`), the source must be allocated (`implicit.empty_implicit_contract`),
 *    the counter must be the stored one + 1 (`contract.counter_in_the_past` / `_in_the_future`), a
 *    reveal reveals the key here (`contract.previously_revealed_key`,
 *    `contract.manager.inconsistent_hash`), scripts are deserialised
 *    (`gas_exhausted.init_deserialize`), the counter is incremented and the fee spent from the
 *    source into the block's fees. Then the signature is checked once, under the generic
 *    watermark, with the key of the first reveal of the batch or the source's revealed key
 *    (`operation.inconsistent_sources`, `contract.unrevealed_key`, `operation.missing_signature`,
 *    `operation.invalid_signature`). Any precheck error makes the whole operation fail (refused in
 *    the mempool, an invalid block) and leaves the state untouched.
 * 2. **Application**, content by content with its own gas limit, then the internal operations
 *    it emitted (depth first), then the storage burn (`storage_exhausted.operation`, `contract.cannot_pay_storage_fee`). A failing content is
 *    `failed` with its errors, the later ones `skipped` (a skipped reveal shows as applied with no
 *    gas, as in Octez), the earlier applied ones `backtracked` (applied reveals stay applied), and
 *    the state goes back to what the precheck left: fees and counters stay.
 *
 * Each content's receipt carries the fee moves `[source −fee, fees(baker, cycle) +fee]`, its
 * result and its internal operations' results. After a batch that applied, the temporary big
 * maps are removed (`cleanup_temporaries`).
 * @module
 */
import { Lru } from "../../../encoding/lru.ts";
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { encodeBinary } from "../../../encoding/codec.ts";
import {
  decodeInjectedOperation,
  type InternalManagerOperation,
  operationContents,
  type ManagerOperation,
  type OperationContents,
  type Reveal,
  unsignedOperation,
} from "../../../encoding/hangzhou/operation.ts";
import { expression } from "../../../encoding/hangzhou/script.ts";
import { type BalanceUpdate, cleanupBalanceUpdates } from "../../../encoding/hangzhou/receipts/balance-updates.ts";
import type { ContentsResult } from "../../../encoding/hangzhou/receipts/contents-results.ts";
import {
  type AnyManagerOperationResult,
  consumedGas,
  type GasConsumption,
  type InternalOperationResult,
  type ManagerKind,
} from "../../../encoding/hangzhou/receipts/operation-results.ts";
import { signatureBytes } from "../../../encoding/keys.ts";
import type { Micheline } from "../../../encoding/micheline.ts";
import { parsePublicKey, publicKeyEquals, type PublicKey } from "../../../crypto/keys.ts";
import { verify } from "../../../crypto/sign.ts";
import { genericWatermark } from "../../../crypto/watermark.ts";
import { failure, TezosError } from "../../../errors/mod.ts";
import type { ShellOperation, SignatureWaived } from "../../../shell/protocol.ts";
import {
  checkCounterIncrement,
  findManagerKey,
  getManagerKey,
  incrementCounter,
  mustBeAllocated,
  revealManagerKey,
  spend,
} from "../storage/contract.ts";
import { cleanupTemporaries } from "../storage/lazy-storage-diff.ts";
import type { ProtoContext } from "../storage/proto-context.ts";
import { tezMul } from "../storage/tez.ts";
import { applyInternalOperations, applyOperationContent, type PendingOperation, type StorageAccount } from "./content.ts";
import { invalidSignature, missingSignature } from "./errors.ts";
import { deserializationCost } from "./gas.ts";
import {
  cannotPayStorageFee,
  gasQuotaExceededInitDeserialize,
  inconsistentSources,
  storageExhausted,
  storageLimitTooHigh,
} from "./manager-errors.ts";

export {
  badContractParameter,
  cannotPayStorageFee,
  gasQuotaExceededInitDeserialize,
  inconsistentSources,
  noSuchEntrypoint,
  storageExhausted,
  storageLimitTooHigh,
} from "./manager-errors.ts";

// ---------------------------------------------------------------------------------------------
// Entry point

/**
 * Applies a manager operation (a batch of manager contents) to the block being applied or built
 * on `pc`: precheck, signature, then the contents (see the module documentation). `op` is the
 * operation as the shell has it: its branch and protocol bytes are what the signature covers
 * when a client forged extra reveal bytes (Taquito 24+). `baker` is the block's baker (the zero
 * key hash in the mempool), credited with the fees in the receipts.
 *
 * Resolves to one receipt per content, in order, as `operationMetadata` encodes them; rejects
 * with the precheck or signature error, the state then as before the call. With
 * `checkSignature: false` (simulation: `run_operation`), the signature is not checked. With
 * `signatureWaived` (the sandbox's impersonation), a wrong signature, or a source without a
 * revealed key, is accepted when it answers true for the source and the operation's hash.
 */
export async function applyManagerOperation(
  pc: ProtoContext,
  chainId: Uint8Array,
  baker: string,
  op: ShellOperation,
  contents: readonly OperationContents[],
  signature: string | undefined,
  options: { checkSignature?: boolean; signatureWaived?: SignatureWaived } = {},
): Promise<ContentsResult[]> {
  if (!(chainId instanceof Uint8Array) || chainId.length !== 4) throw new RangeError("applyManagerOperation: chainId must be 4 bytes");
  const batch = managerBatch(contents);
  const check = options.checkSignature ?? true;
  const signed = check ? await verifyAhead(pc, op, batch, signature) : undefined;
  return pc.atomically(() => {
    for (const c of batch) precheckManagerContent(pc, c);
    if (check) checkManagerSignature(pc, batch, signature, signed, (source) => options.signatureWaived?.(source, op.hash) === true);
    return applyManagerContentsList(pc, chainId, baker, batch);
  });
}

/**
 * Checks, ahead of its turn, the signature of a manager operation with the key the context `pc`
 * knows now, so that its application finds the answer remembered (`verify` keeps valid
 * signatures). Nothing else is checked and nothing is written; it may run for many operations at
 * once, and never throws.
 */
export async function prepareManagerOperation(pc: ProtoContext, op: ShellOperation, contents: readonly OperationContents[], signature: string | undefined): Promise<void> {
  try {
    await verifyAhead(pc, op, managerBatch(contents), signature);
  } catch {
    // the application raises what there is to raise, in Octez's order
  }
}

function managerBatch(contents: readonly OperationContents[]): ManagerOperation[] {
  if (contents.length === 0) throw failure.error({ msg: "An operation without contents" });
  for (const c of contents) {
    if (!("fee" in c)) throw failure.error({ msg: `A manager operation batch with a ${c.kind} content` });
  }
  return contents as ManagerOperation[];
}

// ---------------------------------------------------------------------------------------------
// Precheck

/** `Fees.check_storage_limit`: `storage_limit_too_high` outside [0, hard_storage_limit_per_operation]. */
function checkStorageLimit(pc: ProtoContext, limit: bigint): void {
  if (limit < 0n || limit > pc.constants.hard_storage_limit_per_operation) throw storageLimitTooHigh.error();
}

/** `Script.force_decode_in_context` of expressions received as bytes, traced as Octez does in the precheck. */
function forceDecode(pc: ProtoContext, exprs: readonly Micheline[]): void {
  try {
    for (const e of exprs) pc.consumeGas(deserializationCost(encodeBinary(expression, e).length));
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(gasQuotaExceededInitDeserialize.create());
    throw e;
  }
}

/** `precheck_manager_contents` of one content. */
function precheckManagerContent(pc: ProtoContext, c: ManagerOperation): void {
  pc.consumeGasLimitInBlock(c.gas_limit);
  pc.setGasLimit(c.gas_limit);
  checkStorageLimit(pc, c.storage_limit);
  mustBeAllocated(pc, c.source);
  checkCounterIncrement(pc, c.source, c.counter);
  switch (c.kind) {
    case "reveal":
      revealManagerKey(pc, c.source, parsePublicKey(c.public_key));
      break;
    case "transaction":
      if (c.parameters !== undefined) forceDecode(pc, [c.parameters.value]);
      break;
    case "origination":
      forceDecode(pc, [c.script.code, c.script.storage]);
      break;
    case "register_global_constant":
      forceDecode(pc, [c.value]);
      break;
    case "delegation":
      break;
  }
  incrementCounter(pc, c.source);
  spend(pc, c.source, c.fee);
  pc.addFees(c.fee);
}

// ---------------------------------------------------------------------------------------------
// Signature

/** The batch's source and the key of its first reveal (`find_source`); `operation.inconsistent_sources`. */
function findSource(batch: readonly ManagerOperation[]): { source: string; key: PublicKey | undefined } {
  const source = batch[0]!.source;
  let key: PublicKey | undefined;
  for (const c of batch) {
    if (c.source !== source) throw inconsistentSources.error();
    if (key === undefined && c.kind === "reveal") key = parsePublicKey((c as Reveal).public_key);
  }
  return { source, key };
}

/** The signed bytes of operations checked lately, by operation hash (see {@link signedOperationBytes}). */
const signedBytes = new Lru<string, Uint8Array>(16_384);

/**
 * The bytes the signature covers: branch ‖ contents as Hangzhou encodes them, or as received
 * when the client forged extra reveal bytes (the injected bytes minus the signature). Kept by
 * operation hash: an operation is checked in the mempool and in its block.
 */
export function signedOperationBytes(op: ShellOperation, contents: readonly OperationContents[]): Uint8Array {
  let bytes = signedBytes.get(op.hash);
  if (bytes === undefined) {
    bytes = computeSignedBytes(op, contents);
    signedBytes.set(op.hash, bytes);
  }
  return bytes;
}

function computeSignedBytes(op: ShellOperation, contents: readonly OperationContents[]): Uint8Array {
  const canonical = encodeBinary(unsignedOperation, { branch: op.branch, contents: [...contents] });
  if (op.proto.length < 64) return canonical;
  const branch = b58decode(B58.blockHash, op.branch);
  const raw = new Uint8Array(32 + op.proto.length - 64);
  raw.set(branch, 0);
  raw.set(op.proto.subarray(0, op.proto.length - 64), 32);
  if (raw.length === canonical.length) return canonical;
  const full = new Uint8Array(32 + op.proto.length);
  full.set(branch, 0);
  full.set(op.proto, 32);
  try {
    return decodeInjectedOperation(full).extraRevealBytes > 0 ? raw : canonical;
  } catch {
    return canonical;
  }
}

/** The signature checked ahead of the precheck (it is async, the precheck is not). */
interface CheckedSignature {
  readonly key: PublicKey;
  readonly valid: boolean;
}

/**
 * Verifies the signature with the key the batch will be checked with, as far as it can be known
 * before the precheck: the first reveal's key, or the source's revealed key. The precheck cannot
 * change that key (it only reveals the batch's own), so {@link checkManagerSignature} then only
 * reads the answer, in Octez's order of errors.
 */
async function verifyAhead(
  pc: ProtoContext,
  op: ShellOperation,
  batch: readonly ManagerOperation[],
  signature: string | undefined,
): Promise<CheckedSignature | undefined> {
  if (signature === undefined) return undefined;
  let key: PublicKey | undefined;
  try {
    const found = findSource(batch);
    key = found.key ?? findManagerKey(pc, found.source);
  } catch (e) {
    if (e instanceof TezosError) return undefined; // raised again, in order, after the precheck
    throw e;
  }
  if (key === undefined) return undefined;
  const sig = signatureBytes(signature);
  if (sig === undefined) return { key, valid: false };
  if (await verify(key, sig, signedOperationBytes(op, batch), genericWatermark())) return { key, valid: true };
  // Taquito 24+ signs reveals with the later protocols' empty `proof` option (a 0x00 byte after
  // the key) even when it hands the operation over as JSON (preapply): accept that form too.
  if (!batch.some((c) => c.kind === "reveal")) return { key, valid: false };
  return { key, valid: await verify(key, sig, withRevealProofByte(op.branch, batch), genericWatermark()) };
}

/** branch ‖ contents with a 0x00 after each reveal: the bytes Taquito 24+ signs for a batch with a reveal. */
function withRevealProofByte(branch: string, batch: readonly ManagerOperation[]): Uint8Array {
  const parts: Uint8Array[] = [b58decode(B58.blockHash, branch)];
  for (const c of batch) {
    parts.push(encodeBinary(operationContents, c));
    if (c.kind === "reveal") parts.push(Uint8Array.of(0));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * `check_manager_signature`, after the precheck. `waived(source)`: whether the sandbox accepts
 * the operation of `source` without a valid signature (impersonation); it is asked only when the
 * signature is wrong or missing (64 zero bytes) or the source has no revealed key, and then
 * stands for the check.
 */
function checkManagerSignature(
  pc: ProtoContext,
  batch: readonly ManagerOperation[],
  signature: string | undefined,
  checked: CheckedSignature | undefined,
  waived: (source: string) => boolean,
): void {
  const found = findSource(batch);
  const key = found.key ?? findManagerKey(pc, found.source) ?? (waived(found.source) ? undefined : getManagerKey(pc, found.source));
  if (signature === undefined) {
    if (waived(found.source)) return; // 64 zero bytes read as no signature: any signature goes
    throw missingSignature.error();
  }
  if (key === undefined) return; // an impersonated source without a revealed key: no key to check with
  if (checked === undefined || !publicKeyEquals(checked.key, key)) {
    throw failure.error({ msg: "Internal error: the manager key changed during the precheck" });
  }
  if (!checked.valid && !waived(found.source)) throw invalidSignature.error();
}

// ---------------------------------------------------------------------------------------------
// Application

/** What a content's application gives before its status is known. */
type Success = GasConsumption & Record<string, unknown>;

/**
 * `Fees.burn_storage_fees`: the bytes paid and the allocations must fit in the storage limit
 * (`storage_exhausted.operation`); their cost is burnt from the payer
 * (`contract.cannot_pay_storage_fee` over the spending error).
 */
function burnStorageFees(pc: ProtoContext, storageLimit: bigint, payer: string, storage: StorageAccount): void {
  const consumed = storage.spaceToPay + storage.allocatedContracts * BigInt(pc.constants.origination_size);
  storage.spaceToPay = 0n;
  storage.allocatedContracts = 0n;
  if (storageLimit - consumed < 0n) throw storageExhausted.error();
  const toBurn = tezMul(pc.constants.cost_per_byte, consumed);
  if (toBurn === 0n) return;
  try {
    spend(pc, payer, toBurn);
  } catch (e) {
    if (e instanceof TezosError) throw e.withContext(cannotPayStorageFee.create());
    throw e;
  }
}

/** A top-level content as the operation it applies. */
function operationOf(c: ManagerOperation): InternalManagerOperation {
  switch (c.kind) {
    case "reveal":
      return { kind: "reveal", public_key: c.public_key };
    case "transaction":
      return c.parameters === undefined
        ? { kind: "transaction", amount: c.amount, destination: c.destination }
        : { kind: "transaction", amount: c.amount, destination: c.destination, parameters: c.parameters };
    case "origination":
      return c.delegate === undefined
        ? { kind: "origination", balance: c.balance, script: c.script }
        : { kind: "origination", balance: c.balance, delegate: c.delegate, script: c.script };
    case "delegation":
      return c.delegate === undefined ? { kind: "delegation" } : { kind: "delegation", delegate: c.delegate };
    case "register_global_constant":
      return { kind: "register_global_constant", value: c.value };
  }
}

/** One content's outcome: whether the batch goes on, its result and its internal operations' results. */
interface ContentOutcome {
  ok: boolean;
  result: AnyManagerOperationResult;
  internal: InternalOperationResult[];
}

/** `apply_manager_contents`: the content with its gas limit, its internal operations, then the storage burn. */
function applyManagerContent(pc: ProtoContext, chainId: string, c: ManagerOperation): ContentOutcome {
  pc.setGasLimit(c.gas_limit);
  const storage: StorageAccount = { spaceToPay: 0n, allocatedContracts: 0n };
  const env = { payer: c.source, chainId, storage };
  let success: Success;
  let emitted: PendingOperation[];
  try {
    const applied = applyOperationContent(pc, env, { source: c.source, operation: operationOf(c) }, false);
    success = applied.fields as Success;
    emitted = applied.emitted;
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    return { ok: false, result: { status: "failed", errors: e.toJson() }, internal: [] };
  }
  const internal = applyInternalOperations(pc, env, emitted);
  const applied = { status: "applied", ...success } as AnyManagerOperationResult;
  if (!internal.ok) return { ok: false, result: applied, internal: internal.results };
  try {
    burnStorageFees(pc, c.storage_limit, c.source, storage);
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    return { ok: false, result: { status: "backtracked", errors: e.toJson(), ...success } as AnyManagerOperationResult, internal: internal.results };
  }
  return { ok: true, result: applied, internal: internal.results };
}

/** `skipped_operation_result`: a reveal shows as applied with no gas, the others as skipped. */
function skippedResult(c: ManagerOperation): AnyManagerOperationResult {
  return c.kind === "reveal" ? { status: "applied", ...consumedGas(0n) } : { status: "skipped" };
}

/** `mark_backtracked`: applied results become backtracked, except reveals. */
function markBacktracked(kind: ManagerKind, r: AnyManagerOperationResult): AnyManagerOperationResult {
  if (r.status !== "applied" || kind === "reveal") return r;
  const { status: _, ...fields } = r;
  return { status: "backtracked", ...fields } as AnyManagerOperationResult;
}

const BACKTRACK: unique symbol = Symbol("backtrack");

/**
 * `apply_manager_contents_list`: applies the contents in order until one fails; on a failure the
 * state goes back to the end of the precheck and the results are marked; on success the
 * temporary big maps are removed.
 */
function applyManagerContentsList(pc: ProtoContext, chainId: Uint8Array, baker: string, batch: readonly ManagerOperation[]): ContentsResult[] {
  const cycle = pc.level.cycle;
  const chain = b58encode(B58.chainId, chainId);
  const outcomes: ContentOutcome[] = [];
  let failed = false;
  try {
    pc.atomically(() => {
      for (const c of batch) {
        if (failed) {
          outcomes.push({ ok: false, result: skippedResult(c), internal: [] });
          continue;
        }
        const outcome = applyManagerContent(pc, chain, c);
        outcomes.push(outcome);
        if (!outcome.ok) failed = true;
      }
      if (failed) throw BACKTRACK;
      cleanupTemporaries(pc);
    });
  } catch (e) {
    if (e !== BACKTRACK) throw e;
  }
  return batch.map((c, i) => {
    const o = outcomes[i]!;
    const result = failed ? markBacktracked(c.kind, o.result) : o.result;
    const internal = failed ? o.internal.map((r) => ({ ...r, result: markBacktracked(r.kind, r.result) })) : o.internal;
    return {
      kind: c.kind,
      balance_updates: cleanupBalanceUpdates([
        debit(c.source, c.fee),
        { kind: "freezer", category: "fees", delegate: baker, cycle, change: c.fee, origin: "block" },
      ]),
      operation_result: result,
      internal_operation_results: internal,
    } as ContentsResult;
  });
}

function debit(contract: string, amount: bigint): BalanceUpdate {
  return { kind: "contract", contract, change: -amount, origin: "block" };
}
