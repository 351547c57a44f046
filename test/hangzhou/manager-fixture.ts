/**
 * Helpers for manager-operation tests (tests only): forging signed manager operations from
 * bootstrap or fresh tz1/tz2/tz3 keys, baking blocks with them in validation pass 3, building
 * mempool-style blocks (no protocol data), applying one operation directly on a protocol context,
 * and reading receipts back.
 */
import { decodeBinary, encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { protocolData, type ProtocolDataContents } from "../../lib/encoding/hangzhou/block-header.ts";
import {
  decodeInjectedOperation,
  type ManagerOperation,
  type OperationContents,
  unsignedOperation,
} from "../../lib/encoding/hangzhou/operation.ts";
import { type ContentsResult, operationMetadata } from "../../lib/encoding/hangzhou/receipts/contents-results.ts";
import { ZERO_SIGNATURE } from "../../lib/encoding/keys.ts";
import {
  type Curve,
  formatPublicKey,
  formatPublicKeyHash,
  formatSignature,
  publicKeyHash,
  publicKeyOf,
  type SecretKey,
  secretKeyFromBytes,
} from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { blockWatermark, genericWatermark } from "../../lib/crypto/watermark.ts";
import { forgeEndorsementWithSlot } from "../../lib/baker/operations.ts";
import { signedHeaderBytes } from "../../lib/protocols/hangzhou/apply/baking.ts";
import { applyManagerOperation } from "../../lib/protocols/hangzhou/apply/manager.ts";
import { bakingRightsOwner, endorsementRights } from "../../lib/protocols/hangzhou/rights.ts";
import { contextRightsSource } from "../../lib/protocols/hangzhou/storage/rights-source.ts";
import type { ProtoContext } from "../../lib/protocols/hangzhou/storage/proto-context.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { minimalValidTime } from "../../lib/protocols/hangzhou/timing.ts";
import type { Block } from "../../lib/shell/chain.ts";
import { shellOperation } from "../../lib/shell/operations.ts";
import { headerBytes } from "../../lib/shell/validator.ts";
import { BOOTSTRAP_KEYS, hangzhouChain } from "./chain-fixture.ts";

/** The chain fixture's handle. */
export type HangzhouChain = Awaited<ReturnType<typeof hangzhouChain>>;

/** A key pair with its address. */
export interface Account {
  sk: SecretKey;
  pk: string;
  pkh: string;
}

/** The account of a secret key. */
export function account(sk: SecretKey): Account {
  const pk = publicKeyOf(sk);
  return { sk, pk: formatPublicKey(pk), pkh: formatPublicKeyHash(publicKeyHash(pk)) };
}

/** bootstrap1..5 as accounts. */
export const BOOTSTRAP: readonly Account[] = BOOTSTRAP_KEYS.map(account);

/** A fresh deterministic account of `curve` from a one-byte seed (the 32 bytes all `seed`). */
export function freshAccount(curve: Curve, seed: number): Account {
  return account(secretKeyFromBytes(curve, new Uint8Array(32).fill(seed)));
}

/** Manager fields with the defaults of these tests: fee 1000, gas 1520, storage 0. */
export function manager<T extends ManagerOperation>(
  c: Omit<T, "fee" | "gas_limit" | "storage_limit"> & Partial<Pick<T, "fee" | "gas_limit" | "storage_limit">>,
): T {
  return { fee: 1000n, gas_limit: 1520n, storage_limit: 0n, ...c } as T;
}

/** Options of {@link forge}. */
export interface ForgeOptions {
  /** Sign with this key instead (a wrong signature). */
  signer?: SecretKey;
  /** Leave the signature out (64 zero bytes). */
  unsigned?: boolean;
  /** Append a 0x00 after every reveal's public key, as Taquito 24+ forges it, and sign those bytes. */
  taquitoRevealByte?: boolean;
}

/** The bytes of an operation signed by `sk` under the generic watermark. */
export async function forge(sk: SecretKey, branch: string, contents: OperationContents[], options: ForgeOptions = {}): Promise<Uint8Array> {
  let unsigned = encodeBinary(unsignedOperation, { branch, contents });
  if (options.taquitoRevealByte) unsigned = withRevealBytes(branch, contents);
  const sig = options.unsigned
    ? new Uint8Array(64)
    : await sign(options.signer ?? sk, unsigned, genericWatermark());
  const out = new Uint8Array(unsigned.length + 64);
  out.set(unsigned);
  out.set(sig, unsigned.length);
  return out;
}

/** branch ‖ contents with a 0x00 after each reveal, content by content. */
function withRevealBytes(branch: string, contents: OperationContents[]): Uint8Array {
  const parts: Uint8Array[] = [b58decode(B58.blockHash, branch)];
  for (const c of contents) {
    const one = encodeBinary(unsignedOperation, { branch, contents: [c] }).subarray(32);
    parts.push(one);
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

/** The receipts of a block's validation pass 3, decoded. */
export function managerReceipts(block: Block): ContentsResult[][] {
  return block.info.operations_metadata![3]!.map((b) => decodeBinary(operationMetadata, b)!);
}

/** One receipt as Octez prints it in JSON. */
export function receiptJson(results: ContentsResult[]): Json {
  return operationMetadata.toJson(results);
}

/** Builds a block on the head with `managerOps` in pass 3 (and the regular endorsements); not injected. */
export async function buildManagerBlock(h: HangzhouChain, managerOps: Uint8Array[]) {
  const head = h.chain.head;
  const pc = h.protoAt(head);
  const src = contextRightsSource(pc);
  const owner = formatPublicKeyHash(publicKeyHash(bakingRightsOwner(src, pc.level, 0)));
  const endorsements: Uint8Array[] = [];
  let power = 0;
  if (head.header.level >= 2) {
    const rights = endorsementRights(src, levelFromRaw(pc.eras, head.header.level), pc.constants.endorsers_per_block);
    for (const [pkh, r] of rights) {
      endorsements.push(await forgeEndorsementWithSlot(h.keyOf(pkh), h.chainId, head.hash, head.header.level, r.slots[0]!));
      power += r.slots.length;
    }
  }
  const timestamp = minimalValidTime(pc.constants, 0, power, head.header.timestamp);
  const contents: ProtocolDataContents = {
    priority: 0,
    proof_of_work_nonce: new Uint8Array(8),
    liquidity_baking_escape_vote: false,
    ...(pc.level.expected_commitment ? { seed_nonce_hash: "nceUFoeQDgkJCmzdMWh19ZjBYqQD3N9fe6bXQ1ZsUKKvMn7iun5Z3" } : {}),
  };
  const operations = [endorsements, [], [], managerOps];
  const unsigned = encodeBinary(protocolData, { ...contents, signature: ZERO_SIGNATURE });
  const { shell } = await h.validator.preapply(head, timestamp, unsigned, operations);
  const sig = await sign(h.keyOf(owner), signedHeaderBytes({ ...shell, ...contents, signature: ZERO_SIGNATURE }), blockWatermark(h.chainId));
  const bytes = headerBytes(shell, encodeBinary(protocolData, { ...contents, signature: formatSignature(sig) }));
  return { bytes, operations, owner };
}

/** Bakes a block with `managerOps` in pass 3; the new head. */
export async function bakeManager(h: HangzhouChain, managerOps: Uint8Array[]): Promise<{ block: Block; baker: string }> {
  const b = await buildManagerBlock(h, managerOps);
  const hash = await h.validator.inject(b.bytes, b.operations);
  return { block: h.chain.block(hash)!, baker: b.owner };
}

/** The receipts a mempool would compute: the operations applied in a block without protocol data. */
export async function preapplyInMempool(h: HangzhouChain, managerOps: Uint8Array[]): Promise<ContentsResult[][]> {
  const head = h.chain.head;
  const pc = h.protoAt(head);
  const { receipts } = await h.validator.preapply(head, minimalValidTime(pc.constants, 0, 0, head.header.timestamp), undefined, [[], [], [], managerOps]);
  return receipts[3]!.map((b) => decodeBinary(operationMetadata, b)!);
}

/**
 * Applies one operation's bytes directly on a fresh protocol context of the block after the head
 * (decoded as injected, so Taquito's reveal byte passes); the context and the receipts.
 */
export async function applyDirect(h: HangzhouChain, bytes: Uint8Array, baker = BOOTSTRAP[0]!.pkh): Promise<{ pc: ProtoContext; results: ContentsResult[] }> {
  const pc = h.protoAt(h.chain.head);
  const results = await applyOn(h, pc, bytes, baker);
  return { pc, results };
}

/** Applies one operation's bytes on `pc`; the receipts. */
export function applyOn(h: HangzhouChain, pc: ProtoContext, bytes: Uint8Array, baker = BOOTSTRAP[0]!.pkh): Promise<ContentsResult[]> {
  const { operation } = decodeInjectedOperation(bytes);
  return applyManagerOperation(pc, h.chainId, baker, shellOperation(bytes), operation.contents, operation.signature);
}
