/**
 * Encodings of the shell's RPC answers (Octez `lib_shell_services`): checkpoint, history mode,
 * invalid blocks, bootstrap status, version, monitor notices, network configuration.
 * @module
 */
import { rawBlockHeader, type RawBlockHeader } from "../../encoding/block-header.ts";
import { bool, int31, int32, rangedUint16, uint16 } from "../../encoding/integers.ts";
import { string } from "../../encoding/bytes.ts";
import { constant, def, splitted, stringEnum } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { dynamicSize } from "../../encoding/dynamic.ts";
import { blockHash, chainId, protocolHash } from "../../encoding/hashes.ts";
import { list } from "../../encoding/list.ts";
import { allowAbsent, mergeObjs, obj, req } from "../../encoding/object.ts";
import { option, tagged, union } from "../../encoding/union.ts";
import { timestamp } from "../../encoding/time.ts";
import { type HistoryMode, MAX_ADDITIONAL_CYCLES } from "../../shell/history-mode.ts";
import { bsonJson } from "../../encoding/bson.ts";

const additionalCyclesCodec = obj(req("additional_cycles", rangedUint16(0, MAX_ADDITIONAL_CYCLES)));
const withCycles = (name: "full" | "rolling") => obj(req(name, additionalCyclesCodec));

/**
 * History mode (Octez `history_mode`): `"archive"`, `{"full": {"additional_cycles": n}}`,
 * `{"rolling": {...}}`, and the aliases `"full"` and `"rolling"` for the default number of cycles.
 */
export const historyModeCodec: Codec<HistoryMode> = def(
  "history_mode",
  union<HistoryMode>([
    tagged(0, "archive", constant("archive"), (m: HistoryMode) => (m.mode === "archive" ? "archive" : undefined), (): HistoryMode => ({ mode: "archive" })),
    tagged(
      1,
      "full",
      withCycles("full"),
      (m: HistoryMode) => (m.mode === "full" && m.additionalCycles !== undefined ? { full: { additional_cycles: m.additionalCycles } } : undefined),
      (v): HistoryMode => ({ mode: "full", additionalCycles: v.full.additional_cycles }),
    ),
    tagged(
      2,
      "rolling",
      withCycles("rolling"),
      (m: HistoryMode) => (m.mode === "rolling" && m.additionalCycles !== undefined ? { rolling: { additional_cycles: m.additionalCycles } } : undefined),
      (v): HistoryMode => ({ mode: "rolling", additionalCycles: v.rolling.additional_cycles }),
    ),
    tagged(3, "full_alias", constant("full"), (m: HistoryMode) => (m.mode === "full" && m.additionalCycles === undefined ? "full" : undefined), (): HistoryMode => ({ mode: "full" })),
    tagged(4, "rolling_alias", constant("rolling"), (m: HistoryMode) => (m.mode === "rolling" && m.additionalCycles === undefined ? "rolling" : undefined), (): HistoryMode => ({ mode: "rolling" })),
  ]),
  { title: "history mode", description: "Storage mode for the Tezos shell." },
);

/** The deprecated `/checkpoint` answer. */
export interface Checkpoint {
  block: RawBlockHeader;
  savepoint: number;
  caboose: number;
  history_mode: HistoryMode;
}

const checkpointV12 = obj(
  req("block", dynamicSize(rawBlockHeader)),
  req("savepoint", int32),
  req("caboose", int32),
  req("history_mode", historyModeCodec),
);

const checkpointJson = obj(
  req("block", dynamicSize(rawBlockHeader)),
  req("save_point", int32),
  req("savepoint", int32),
  req("caboose", int32),
  req("history_mode", historyModeCodec),
);

/**
 * `/chains/<chain>/checkpoint`: Octez v12's binary form; in JSON the savepoint appears both as
 * `savepoint` (v12) and `save_point` (the specification's spelling).
 */
export const checkpointCodec: Codec<Checkpoint> = splitted<Checkpoint>(
  {
    toJson: (v) => checkpointJson.toJson({ ...v, save_point: v.savepoint }),
    fromJson: (j) => checkpointJson.fromJson(j),
    schema: checkpointJson.schema,
  },
  checkpointV12,
);

/** `{block_hash, level}` of `/chains/<chain>/levels/*`. */
export const blockDescriptorCodec = obj(req("block_hash", blockHash), req("level", int32));

/** An entry of `/chains/<chain>/invalid_blocks`. */
export const invalidBlockCodec = obj(req("block", blockHash), req("level", int32), req("errors", bsonJson()));

/** `/chains/<chain>/is_bootstrapped`. */
export const bootstrapStatusCodec = obj(
  req("bootstrapped", bool),
  req("sync_state", stringEnum(["synced", "unsynced", "stuck"] as const)),
);

/** `/monitor/bootstrapped`. */
export const bootstrappedCodec = obj(req("block", blockHash), req("timestamp", timestamp));

/** `/monitor/heads/<chain>`: the hash, then the raw header fields. */
export const headNoticeCodec = mergeObjs(obj(req("hash", blockHash)), rawBlockHeader);

/** `/monitor/valid_blocks`. */
export const validBlockNoticeCodec = mergeObjs(obj(req("chain_id", chainId), req("hash", blockHash)), rawBlockHeader);

/** `/chains/<chain>/blocks`: lists of block hashes. */
export const blockListsCodec = list(list(blockHash));

/** `/version`. */
export const versionCodec = obj(
  req(
    "version",
    obj(
      req("major", int31),
      req("minor", int31),
      req(
        "additional_info",
        union<string>([
          tagged(0, "Dev", constant("dev"), (v) => (v === "dev" ? "dev" : undefined), () => "dev"),
          tagged(2, "Release", constant("release"), (v) => (v === "release" ? "release" : undefined), () => "release"),
        ]),
      ),
    ),
  ),
  req("network_version", obj(req("chain_name", string), req("distributed_db_version", uint16), req("p2p_version", uint16))),
  req("commit_info", allowAbsent(option(obj(req("commit_hash", string), req("commit_date", string))))),
);

/** `/config/network/user_activated_upgrades`. */
export const userActivatedUpgradesCodec = list(obj(req("level", int32), req("replacement_protocol", protocolHash)));

/** `/config/network/user_activated_protocol_overrides`. */
export const protocolOverridesCodec = list(obj(req("replaced_protocol", protocolHash), req("replacement_protocol", protocolHash)));

/** `/config/history_mode`. */
export const historyModeAnswerCodec = obj(req("history_mode", historyModeCodec));

/** `/protocols`. */
export const protocolListCodec = list(protocolHash);

/** A chain's status on `/monitor/active_chains` (Octez `chain_status_encoding`): this node runs only its main chain. */
export type ChainStatus =
  | { readonly chain_id: string }
  | { readonly chain_id: string; readonly test_protocol: string; readonly expiration_date: number }
  | { readonly stopping: string };

/** Octez's `chain_status_encoding`: `Main` (tag 0), `Test` (tag 1), `Stopping` (tag 2). */
export const chainStatusCodec: Codec<ChainStatus> = union<ChainStatus>([
  tagged(0, "Main", obj(req("chain_id", chainId)), (s) => ("chain_id" in s && !("test_protocol" in s) ? s : undefined), (s) => s as ChainStatus),
  tagged(
    1,
    "Test",
    obj(req("chain_id", chainId), req("test_protocol", protocolHash), req("expiration_date", timestamp)),
    (s) => ("test_protocol" in s ? s : undefined),
    (s) => s as ChainStatus,
  ),
  tagged(2, "Stopping", obj(req("stopping", chainId)), (s) => ("stopping" in s ? s : undefined), (s) => s as ChainStatus),
]);
