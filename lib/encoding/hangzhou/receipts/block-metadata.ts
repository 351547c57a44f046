/**
 * Block receipts: Hangzhou's part (`apply_results.ml`'s `block_metadata`: baker, level and voting
 * period information, nonce hash, gas, deactivated delegates, balance updates, liquidity-baking
 * escape EMA, implicit operations' results) merged with the shell's part
 * (`block_services.ml`'s `block_header_metadata`: protocols, test chain status and the limits
 * for the next block), as `GET {B}/metadata` prints it.
 * @module
 */
import type { Codec } from "../../core.ts";
import { constant, conv, def } from "../../conv.ts";
import { dynamicSize } from "../../dynamic.ts";
import { blockHash, chainId, nonceHash, protocolHash } from "../../hashes.ts";
import { int31, int32 } from "../../integers.ts";
import { publicKeyHash } from "../../keys.ts";
import { list } from "../../list.ts";
import { mergeObjs, obj, opt, req } from "../../object.ts";
import { timestamp } from "../../time.ts";
import { option, tagged, union } from "../../union.ts";
import { n } from "../../zarith.ts";
import { level, votingPeriod, type Level, type VotingPeriod } from "../basic.ts";
import { balanceUpdates, type BalanceUpdate } from "./balance-updates.ts";
import { HANGZHOU_PROTOCOL } from "./contents-results.ts";
import { successfulManagerOperationResult, type SuccessfulManagerOperationResult } from "./operation-results.ts";

/** Where a block sits in its voting period. */
export interface VotingPeriodInfo {
  voting_period: VotingPeriod;
  position: number;
  remaining: number;
}

/** Voting period information codec (`011-PtHangz2.voting_period.info`'s shape). */
export const votingPeriodInfo: Codec<VotingPeriodInfo> = obj(req("voting_period", votingPeriod), req("position", int32), req("remaining", int32));

/** Hangzhou's part of a block's receipt. */
export interface HangzhouBlockMetadata {
  baker: string;
  level_info: Level;
  voting_period_info: VotingPeriodInfo;
  /** The seed nonce hash committed by the baker, or `null`. */
  nonce_hash: string | null;
  /** Gas consumed by the block, in milligas. */
  consumed_gas: bigint;
  deactivated: string[];
  balance_updates: BalanceUpdate[];
  liquidity_baking_escape_ema: number;
  implicit_operations_results: SuccessfulManagerOperationResult[];
}

/** `option nonce_hash` (binary 0x00, or 0x01 and the hash; JSON `null` or the hash), `null` for none. */
const nullableNonceHash: Codec<string | null> = conv<string | null, string | undefined>(
  (v) => (v === null ? undefined : v),
  (v) => (v === undefined ? null : v),
  option(nonceHash),
);

/** Hangzhou's block receipt codec (`011-PtHangz2.block_header.alpha.metadata`). */
export const hangzhouBlockMetadata: Codec<HangzhouBlockMetadata> = def(
  "011-PtHangz2.block_header.alpha.metadata",
  obj(
    req("baker", publicKeyHash),
    req("level_info", level),
    req("voting_period_info", votingPeriodInfo),
    req("nonce_hash", nullableNonceHash),
    req("consumed_gas", n),
    req("deactivated", list(publicKeyHash)),
    req("balance_updates", balanceUpdates),
    req("liquidity_baking_escape_ema", int32),
    req("implicit_operations_results", list(successfulManagerOperationResult)),
  ),
);

/** Status of the test chain. */
export type TestChainStatus =
  | { status: "not_running" }
  | { status: "forking"; protocol: string; expiration: number }
  | { status: "running"; chain_id: string; genesis: string; protocol: string; expiration: number };

type TCS = TestChainStatus;

/** Test chain status codec (`test_chain_status`). */
export const testChainStatus: Codec<TestChainStatus> = def(
  "test_chain_status",
  union<TCS>([
    tagged<TCS, TCS>(0, "Not_running", obj(req("status", constant("not_running"))) as Codec<TCS>, (v) => (v.status === "not_running" ? v : undefined), (v) => v),
    tagged<TCS, TCS>(
      1,
      "Forking",
      obj(req("status", constant("forking")), req("protocol", protocolHash), req("expiration", timestamp)) as Codec<TCS>,
      (v) => (v.status === "forking" ? v : undefined),
      (v) => v,
    ),
    tagged<TCS, TCS>(
      2,
      "Running",
      obj(
        req("status", constant("running")),
        req("chain_id", chainId),
        req("genesis", blockHash),
        req("protocol", protocolHash),
        req("expiration", timestamp),
      ) as Codec<TCS>,
      (v) => (v.status === "running" ? v : undefined),
      (v) => v,
    ),
  ]),
  {
    description:
      "The status of the test chain: not_running (there is no test chain at the moment), forking (the test chain is being setup), running (the test chain is running).",
  },
);

/** Size limits of one validation pass's operation list. */
export interface OperationListQuota {
  max_size: number;
  max_op?: number;
}

/** The shell's part of a block's receipt (limits for the next block). */
export interface ShellBlockMetadata {
  protocol: string;
  next_protocol: string;
  test_chain_status: TestChainStatus;
  max_operations_ttl: number;
  max_operation_data_length: number;
  max_block_header_length: number;
  max_operation_list_length: OperationListQuota[];
}

/** A Hangzhou block's receipt as `GET {B}/metadata` prints it. */
export type BlockMetadata = ShellBlockMetadata & HangzhouBlockMetadata;

/**
 * Block receipt codec for blocks of `protocol` whose successor uses `nextProtocol`
 * (`block_header_metadata`): both hashes are constants (no bytes in binary), then the test chain
 * status, the limits, and the protocol's part.
 */
export function blockMetadataFor(protocol: string, nextProtocol: string): Codec<BlockMetadata> {
  return def(
    "block_header_metadata",
    mergeObjs(
      obj(
        req("protocol", constant(protocol)),
        req("next_protocol", constant(nextProtocol)),
        req("test_chain_status", testChainStatus),
        req("max_operations_ttl", int31),
        req("max_operation_data_length", int31),
        req("max_block_header_length", int31),
        req("max_operation_list_length", dynamicSize(list(obj(req("max_size", int31), opt("max_op", int31))))),
      ),
      hangzhouBlockMetadata,
    ) as Codec<BlockMetadata>,
  );
}

/** Receipt codec of a Hangzhou block followed by a Hangzhou block. */
export const blockMetadata: Codec<BlockMetadata> = blockMetadataFor(HANGZHOU_PROTOCOL, HANGZHOU_PROTOCOL);
