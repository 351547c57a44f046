/**
 * Receipts of Hangzhou operations (`apply_results.ml`): the result of each content
 * (`contents_result`), an operation's receipt (`operation_metadata`), contents and their results
 * side by side (`operation_contents_and_result`, `operation_with_metadata`), and the shell's
 * forms of an operation in a block (`block_services.ml`: too large, without or with metadata,
 * and the full `{protocol, chain_id, hash, branch, contents, signature}` object of
 * `GET {B}/operations`).
 * @module
 */
import { DecodeError, type Json } from "../../codec.ts";
import { makeCodec, withPath, type Codec, type FieldSpec } from "../../core.ts";
import { constant, conv, def } from "../../conv.ts";
import { dynamicSize } from "../../dynamic.ts";
import { blockHash, chainId, operationHash } from "../../hashes.ts";
import { uint16 } from "../../integers.ts";
import { publicKeyHash, signature } from "../../keys.ts";
import { list, variableList } from "../../list.ts";
import { dft, mergeObjs, obj, objOf, opt, req } from "../../object.ts";
import { tagged, union, type Case } from "../../union.ts";
import { operationContents, operationProtocolData, type OperationContents } from "../operation.ts";
import { normalizeTransaction } from "../script.ts";
import { balanceUpdates, type BalanceUpdate } from "./balance-updates.ts";
import { caseFields, caseKind, unionCasesOf } from "./cases.ts";
import {
  internalOperationResult,
  operationResults,
  type InternalOperationResult,
  type ManagerKind,
  type ManagerOperationResult,
  type ManagerSuccessByKind,
} from "./operation-results.ts";

/** Receipt of an endorsement (also of an `endorsement_with_slot`): the endorser and its slots. */
export interface EndorsementMetadata {
  balance_updates: BalanceUpdate[];
  delegate: string;
  slots: number[];
}

/** Receipt made of balance updates only (nonce revelations, evidence, activations). */
export interface BalanceUpdatesMetadata {
  balance_updates: BalanceUpdate[];
}

/** Empty receipt (proposals, ballots): JSON `{}`. */
export type EmptyMetadata = Record<string, never>;

/** Receipt of a manager operation: fees, the operation's result, the internal operations' results. */
export interface ManagerMetadata<S> {
  balance_updates: BalanceUpdate[];
  operation_result: ManagerOperationResult<S>;
  internal_operation_results: InternalOperationResult[];
}

/** Receipts by kind of operation content. */
export interface MetadataByKind {
  endorsement: EndorsementMetadata;
  seed_nonce_revelation: BalanceUpdatesMetadata;
  endorsement_with_slot: EndorsementMetadata;
  double_endorsement_evidence: BalanceUpdatesMetadata;
  double_baking_evidence: BalanceUpdatesMetadata;
  activate_account: BalanceUpdatesMetadata;
  proposals: EmptyMetadata;
  ballot: EmptyMetadata;
  reveal: ManagerMetadata<ManagerSuccessByKind["reveal"]>;
  transaction: ManagerMetadata<ManagerSuccessByKind["transaction"]>;
  origination: ManagerMetadata<ManagerSuccessByKind["origination"]>;
  delegation: ManagerMetadata<ManagerSuccessByKind["delegation"]>;
  register_global_constant: ManagerMetadata<ManagerSuccessByKind["register_global_constant"]>;
}

/** Kinds of contents that have a receipt (all but `failing_noop`). */
export type ContentsKindWithResult = keyof MetadataByKind;

/** The receipt of one content, with its kind (`contents_result`). */
export type ContentsResult = { [K in ContentsKindWithResult]: { kind: K } & MetadataByKind[K] }[ContentsKindWithResult];

/** One content with its receipt under `metadata` (`operation_contents_and_result`). */
export type OperationContentsAndResult = {
  [K in ContentsKindWithResult]: Extract<OperationContents, { kind: K }> & { metadata: MetadataByKind[K] };
}[ContentsKindWithResult];

/** An operation's receipt (`operation.alpha.result`): the contents' results, or `null` for none. */
export type OperationMetadata = ContentsResult[] | null;

/** An operation with or without its contents' receipts (`operation_with_metadata`). */
export type OperationWithMetadata =
  | { contents: OperationContentsAndResult[]; signature?: string }
  | { contents: OperationContents[]; signature?: string };

/**
 * An operation's data as a block shows it (`block_services.ml`'s `operation_data_encoding`):
 * with receipts, without (`contents` plain), or with receipts too large to keep
 * (`metadata: "too large"`).
 */
export type BlockOperationData = OperationWithMetadata & { metadata?: "too large" };

/** An operation of a block as `GET {B}/operations` prints it. */
export type BlockOperation = BlockOperationData & { protocol: string; chain_id: string; hash: string; branch: string };

const balanceOnly: FieldSpec[] = [req("balance_updates", balanceUpdates)];
const endorsementMeta: FieldSpec[] = [req("balance_updates", balanceUpdates), req("delegate", publicKeyHash), req("slots", list(uint16))];

const MANAGER = new Set<string>(["reveal", "transaction", "origination", "delegation", "register_global_constant"]);

function metadataFields(kind: string): FieldSpec[] | undefined {
  switch (kind) {
    case "endorsement":
    case "endorsement_with_slot":
      return endorsementMeta;
    case "seed_nonce_revelation":
    case "double_endorsement_evidence":
    case "double_baking_evidence":
    case "activate_account":
      return balanceOnly;
    case "proposals":
    case "ballot":
      return [];
    default:
      if (!MANAGER.has(kind)) return undefined;
      return [
        req("balance_updates", balanceUpdates),
        req("operation_result", operationResults[kind as ManagerKind] as Codec<unknown>),
        dft("internal_operation_results", list(internalOperationResult), []),
      ];
  }
}

/** Octez's order of the result cases (its `contents_result_encoding` list). */
const ORDER: readonly ContentsKindWithResult[] = [
  "endorsement",
  "seed_nonce_revelation",
  "endorsement_with_slot",
  "double_endorsement_evidence",
  "double_baking_evidence",
  "activate_account",
  "proposals",
  "ballot",
  "reveal",
  "transaction",
  "origination",
  "delegation",
  "register_global_constant",
];

const contentCases = new Map(unionCasesOf(operationContents as Codec<unknown>).map((c) => [caseKind(c), c]));

function contentCase(kind: string) {
  const c = contentCases.get(kind);
  if (c === undefined) throw new TypeError(`No operation case for ${kind}`);
  return c;
}

/** `{}` and nothing else (data-encoding `empty`, whose JSON decoder refuses unknown fields). */
const strictEmpty: Codec<Record<string, never>> = makeCodec<Record<string, never>>({
  size: { kind: "fixed", size: 0 },
  desc: { t: "zero" },
  toJson: () => ({}),
  fromJson(j) {
    if (typeof j !== "object" || j === null || Array.isArray(j) || Object.keys(j).length > 0) {
      throw new DecodeError(`Expected an empty object, got ${JSON.stringify(j).slice(0, 60)}`);
    }
    return {};
  },
  write() {},
  read: () => ({}),
  schema: () => ({ type: "object", properties: {}, additionalProperties: false }),
});

type CR = ContentsResult;
type CAR = OperationContentsAndResult;

/** Contents result codec (`011-PtHangz2.operation.alpha.contents_result`). */
export const contentsResult: Codec<ContentsResult> = def(
  "011-PtHangz2.operation.alpha.contents_result",
  union<CR>(
    ORDER.map((kind) => {
      const c = contentCase(kind);
      return tagged<CR, CR>(c.tag, c.title, objOf<CR>([req("kind", constant(kind)), ...metadataFields(kind)!]), (v) => (v.kind === kind ? v : undefined), (v) => v);
    }),
  ),
);

/** Contents and result codec (`011-PtHangz2.operation.alpha.operation_contents_and_result`). */
export const operationContentsAndResult: Codec<OperationContentsAndResult> = def(
  "011-PtHangz2.operation.alpha.operation_contents_and_result",
  union<CAR>(
    ORDER.map((kind) => {
      const c = contentCase(kind);
      const meta = metadataFields(kind)!;
      let codec: Codec<CAR> = objOf<CAR>([...caseFields(c), req("metadata", meta.length === 0 ? strictEmpty : objOf(meta))]);
      if (kind === "transaction") codec = normalizeTransaction(codec as Codec<any>) as Codec<CAR>;
      return tagged<CAR, CAR>(c.tag, c.title, codec, (v) => (v.kind === kind ? v : undefined), (v) => v);
    }),
  ),
);

/**
 * Octez's guard on lists of contents and of results: not empty, and several elements only when
 * all are manager operations.
 */
function batchGuard<T extends { kind: string }>(what: string, codec: Codec<T[]>): Codec<T[]> {
  const check = (v: T[], E: typeof DecodeError | typeof TypeError): T[] => {
    if (!Array.isArray(v)) return v;
    if (v.length === 0) throw new E(`cannot decode empty ${what}`);
    if (v.length > 1 && !v.every((x) => MANAGER.has(x.kind))) throw new E(`cannot decode ill-formed ${what}`);
    return v;
  };
  return conv<T[], T[]>((v) => check(v, TypeError), (v) => check(v, DecodeError), codec);
}

/** Results of an operation's contents (`011-PtHangz2.operation.alpha.contents_list_result`). */
export const contentsResultList: Codec<ContentsResult[]> = def(
  "011-PtHangz2.operation.alpha.contents_list_result",
  batchGuard("operation result", list(contentsResult)),
);

const contentsAndResultList: Codec<OperationContentsAndResult[]> = batchGuard("combined operation result", variableList(operationContentsAndResult));
const contentsList: Codec<OperationContents[]> = batchGuard("operation contents", variableList(operationContents));


/**
 * An operation's receipt codec (`011-PtHangz2.operation.alpha.result`, the protocol's
 * `operation_receipt_encoding`): tag 0 and the list of contents results (JSON: that array), or
 * tag 1 for no receipt (JSON `{}`, value `null`).
 */
export const operationMetadata: Codec<OperationMetadata> = def(
  "011-PtHangz2.operation.alpha.result",
  union<OperationMetadata>([
    tagged<OperationMetadata, ContentsResult[]>(0, "Operation_metadata", contentsResultList, (v) => (v === null ? undefined : v), (v) => v),
    tagged<OperationMetadata, Record<string, never>>(1, "No_operation_metadata", strictEmpty, (v) => (v === null ? {} : undefined), () => null),
  ]),
);

/** A union whose JSON case is picked by `pick` rather than by trying the cases in turn. */
function pickedUnion<T>(cases: Case<T>[], pick: (j: Json) => number): Codec<T> {
  const u = union<T>(cases);
  return makeCodec<T>({
    size: u.size,
    desc: u.desc,
    toJson: u.toJson,
    fromJson(j) {
      const c = cases[pick(j)]!;
      try {
        return c.inj(c.codec.fromJson(j));
      } catch (e) {
        throw withPath(e, c.title);
      }
    },
    write: u.write,
    read: u.read,
    schema: (ctx) => u.schema(ctx),
  });
}

function hasMetadata(contents: readonly unknown[]): boolean {
  return contents.some((c) => typeof c === "object" && c !== null && "metadata" in c && (c as { metadata?: unknown }).metadata !== undefined);
}

function contentsOf(j: Json): Json[] {
  if (typeof j !== "object" || j === null || Array.isArray(j)) throw new DecodeError(`Expected an operation object, got ${JSON.stringify(j).slice(0, 60)}`);
  const c = j["contents"];
  if (!Array.isArray(c)) throw new DecodeError(`Missing or invalid field "contents"`, ["contents"]);
  return c;
}

type OWM = OperationWithMetadata;

/**
 * Contents with their receipts, or without (`011-PtHangz2.operation.alpha.operation_with_metadata`,
 * the protocol's `operation_data_and_receipt_encoding`; what preapply and run_operation return).
 * In binary: tag, length-prefixed contents, optional signature. In JSON the case is the one with
 * receipts when the contents carry `metadata`.
 */
export const operationWithMetadata: Codec<OperationWithMetadata> = def(
  "011-PtHangz2.operation.alpha.operation_with_metadata",
  pickedUnion<OWM>(
    [
      tagged<OWM, OWM>(
        0,
        "Operation_with_metadata",
        obj(req("contents", dynamicSize(contentsAndResultList)), opt("signature", signature)) as Codec<OWM>,
        (v) => (hasMetadata(v.contents) ? v : undefined),
        (v) => v,
      ),
      tagged<OWM, OWM>(
        1,
        "Operation_without_metadata",
        obj(req("contents", dynamicSize(contentsList)), opt("signature", signature)) as Codec<OWM>,
        (v) => (hasMetadata(v.contents) ? undefined : v),
        (v) => v,
      ),
    ],
    (j) => (hasMetadata(contentsOf(j)) ? 0 : 1),
  ),
);

type BOD = BlockOperationData;

/**
 * An operation's data in a block (`block_services.ml`'s `operation_data_encoding`): tag 0, the
 * operation's data and `metadata: "too large"`; tag 1, the data alone (no receipt kept); tag 2,
 * {@link operationWithMetadata}. A receipt of "no metadata" read from binary (tag 2 then 1) comes
 * back as the value of tag 1.
 */
export const blockOperationData: Codec<BlockOperationData> = pickedUnion<BOD>(
  [
    tagged<BOD, BOD>(
      0,
      "Operation with too large metadata",
      mergeObjs(operationProtocolData, obj(req("metadata", constant("too large")))) as unknown as Codec<BOD>,
      (v) => (v.metadata === "too large" ? v : undefined),
      (v) => v,
    ),
    tagged<BOD, BOD>(
      1,
      "Operation without metadata",
      operationProtocolData as unknown as Codec<BOD>,
      (v) => (v.metadata === undefined && !hasMetadata(v.contents) ? v : undefined),
      (v) => v,
    ),
    tagged<BOD, BOD>(
      2,
      "Operation with metadata",
      operationWithMetadata as Codec<BOD>,
      (v) => (v.metadata === undefined && hasMetadata(v.contents) ? v : undefined),
      (v) => v,
    ),
  ],
  (j) => {
    const contents = contentsOf(j);
    if ((j as { [k: string]: Json })["metadata"] === "too large") return 0;
    return hasMetadata(contents) ? 2 : 1;
  },
);

/** Octez v12's Hangzhou protocol hash. */
export const HANGZHOU_PROTOCOL = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

/**
 * An operation of a block as `GET {B}/operations` prints it (`block_services.ml`'s `operation`),
 * for blocks of protocol `protocol` (a constant: no bytes in binary): protocol, chain id, hash,
 * then the length-prefixed shell header and the length-prefixed {@link blockOperationData}.
 */
export function blockOperationFor(protocol: string): Codec<BlockOperation> {
  return def(
    "operation",
    mergeObjs(
      obj(req("protocol", constant(protocol)), req("chain_id", chainId), req("hash", operationHash), req("branch", dynamicSize(blockHash))),
      dynamicSize(blockOperationData),
    ) as unknown as Codec<BlockOperation>,
  );
}

/** {@link blockOperationFor} Hangzhou blocks. */
export const blockOperation: Codec<BlockOperation> = blockOperationFor(HANGZHOU_PROTOCOL);
