/**
 * Hangzhou operations (`operation_repr.ml`): every content kind, the signed operation (branch,
 * contents, signature), its unsigned form (branch ‖ contents, what is signed and what
 * `/helpers/forge/operations` returns), its raw form (`{branch, data}`), internal operations,
 * and a decoder for injected bytes that tolerates the extra reveal byte of recent Taquito versions.
 * @module
 */
import { DecodeError, Reader } from "../codec.ts";
import { makeCodec, withPath, type Codec, type FieldSpec } from "../core.ts";
import { constant, conv, def } from "../conv.ts";
import { fixedBytes, string } from "../bytes.ts";
import { dynamicSize } from "../dynamic.ts";
import { ed25519PublicKeyHash, protocolHash } from "../hashes.ts";
import { int32, uint16 } from "../integers.ts";
import { publicKey, publicKeyHash, signature, signatureBytes, ZERO_SIGNATURE } from "../keys.ts";
import { list, variableList } from "../list.ts";
import type { Micheline } from "../micheline.ts";
import { allowAbsent, mergeObjs, obj, objOf, opt, req, varopt } from "../object.ts";
import { operationShellHeader, rawOperation, type RawOperation } from "../operation.ts";
import { tagged, union, type Case } from "../union.ts";
import { ballot, contractId, mutez, n10, nonce, type Ballot } from "./basic.ts";
import { blockHeader, type BlockHeader } from "./block-header.ts";
import { lazyExpression, normalizeTransaction, parameters, script, type Parameters, type Script } from "./script.ts";

/** An endorsement of the block at `level` (its branch). */
export interface Endorsement {
  kind: "endorsement";
  level: number;
}

/** A complete signed endorsement operation, as carried by evidence and `endorsement_with_slot`. */
export interface InlinedEndorsement {
  branch: string;
  operations: Endorsement;
  signature?: string;
}

/** Revelation of a seed nonce committed at `level`. */
export interface SeedNonceRevelation {
  kind: "seed_nonce_revelation";
  level: number;
  nonce: Uint8Array;
}

/** An endorsement with the endorser's first slot (Florence to Hangzhou). */
export interface EndorsementWithSlot {
  kind: "endorsement_with_slot";
  endorsement: InlinedEndorsement;
  slot: number;
}

/** Evidence of two endorsements by one delegate at one level. */
export interface DoubleEndorsementEvidence {
  kind: "double_endorsement_evidence";
  op1: InlinedEndorsement;
  op2: InlinedEndorsement;
  slot: number;
}

/** Evidence of two blocks baked by one delegate at one level. */
export interface DoubleBakingEvidence {
  kind: "double_baking_evidence";
  bh1: BlockHeader;
  bh2: BlockHeader;
}

/** Activation of a fundraiser account. */
export interface ActivateAccount {
  kind: "activate_account";
  pkh: string;
  secret: Uint8Array;
}

/** Protocol proposals of a delegate. */
export interface Proposals {
  kind: "proposals";
  source: string;
  period: number;
  proposals: string[];
}

/** A delegate's ballot on a proposal. */
export interface BallotOperation {
  kind: "ballot";
  source: string;
  period: number;
  proposal: string;
  ballot: Ballot;
}

/** An operation that always fails (for signing arbitrary messages). */
export interface FailingNoop {
  kind: "failing_noop";
  arbitrary: string;
}

/** Fields common to manager operations. */
export interface ManagerFields {
  source: string;
  fee: bigint;
  counter: bigint;
  gas_limit: bigint;
  storage_limit: bigint;
}

/** Reveal of a public key. */
export interface Reveal extends ManagerFields {
  kind: "reveal";
  public_key: string;
}

/** Transfer of tez, possibly calling a contract. */
export interface Transaction extends ManagerFields {
  kind: "transaction";
  amount: bigint;
  destination: string;
  parameters?: Parameters;
}

/** Origination of a contract. */
export interface Origination extends ManagerFields {
  kind: "origination";
  balance: bigint;
  delegate?: string;
  script: Script;
}

/** Setting or withdrawing a delegate. */
export interface Delegation extends ManagerFields {
  kind: "delegation";
  delegate?: string;
}

/** Registration of a global constant. */
export interface RegisterGlobalConstant extends ManagerFields {
  kind: "register_global_constant";
  value: Micheline;
}

/** Manager operations. */
export type ManagerOperation = Reveal | Transaction | Origination | Delegation | RegisterGlobalConstant;

/** One content of a Hangzhou operation. */
export type OperationContents =
  | Endorsement
  | SeedNonceRevelation
  | EndorsementWithSlot
  | DoubleEndorsementEvidence
  | DoubleBakingEvidence
  | ActivateAccount
  | Proposals
  | BallotOperation
  | FailingNoop
  | ManagerOperation;

/** Kinds of operation contents. */
export type OperationKind = OperationContents["kind"];

/** A signed Hangzhou operation (`signature` absent = 64 zero bytes in binary). */
export interface Operation {
  branch: string;
  contents: OperationContents[];
  signature?: string;
}

/** An unsigned Hangzhou operation. */
export interface UnsignedOperation {
  branch: string;
  contents: OperationContents[];
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function kindFields(name: string, fields: readonly FieldSpec[]): FieldSpec[] {
  return [req("kind", constant(name)), ...fields];
}

function kindCase<T extends { kind: string }>(tag: number, name: string, codec: Codec<any>): Case<T> {
  return tagged<T, T>(tag, capitalize(name), codec, (v) => (v.kind === name ? v : undefined), (v) => v);
}

const endorsementFields = [req("level", int32)];

/** Inlined endorsement contents (`011-PtHangz2.inlined.endorsement.contents`). */
const inlinedEndorsementContents: Codec<Endorsement> = def(
  "011-PtHangz2.inlined.endorsement.contents",
  union<Endorsement>([kindCase(0, "endorsement", objOf(kindFields("endorsement", endorsementFields)))]),
);

/** Inlined endorsement codec (`011-PtHangz2.inlined.endorsement`): branch, the endorsement, the signature. */
export const inlinedEndorsement: Codec<InlinedEndorsement> = def(
  "011-PtHangz2.inlined.endorsement",
  mergeObjs(operationShellHeader, obj(req("operations", inlinedEndorsementContents), varopt("signature", signature))),
);

const managerFields: FieldSpec[] = [
  req("source", publicKeyHash),
  req("fee", mutez),
  req("counter", n10),
  req("gas_limit", n10),
  req("storage_limit", n10),
];

const revealFields: FieldSpec[] = [req("public_key", publicKey)];
const transactionFields: FieldSpec[] = [req("amount", mutez), req("destination", contractId), opt("parameters", parameters)];
const originationFields: FieldSpec[] = [req("balance", mutez), opt("delegate", publicKeyHash), req("script", script)];
const delegationFields: FieldSpec[] = [opt("delegate", publicKeyHash)];
const registerGlobalConstantFields: FieldSpec[] = [req("value", lazyExpression)];

function managerCase<T extends { kind: string }>(tag: number, name: string, fields: FieldSpec[], withManager: boolean): Case<T> {
  let codec: Codec<any> = objOf(kindFields(name, withManager ? [...managerFields, ...fields] : fields));
  if (name === "transaction") codec = normalizeTransaction(codec);
  return kindCase<T>(tag, name, codec);
}

/** One operation content (`011-PtHangz2.operation.alpha.contents`), tag byte then fields. */
export const operationContents: Codec<OperationContents> = def(
  "011-PtHangz2.operation.alpha.contents",
  union<OperationContents>([
    kindCase(0, "endorsement", objOf(kindFields("endorsement", endorsementFields))),
    kindCase(1, "seed_nonce_revelation", objOf(kindFields("seed_nonce_revelation", [req("level", int32), req("nonce", nonce)]))),
    kindCase(
      10,
      "endorsement_with_slot",
      objOf(kindFields("endorsement_with_slot", [req("endorsement", dynamicSize(inlinedEndorsement)), req("slot", uint16)])),
    ),
    kindCase(
      2,
      "double_endorsement_evidence",
      objOf(
        kindFields("double_endorsement_evidence", [
          req("op1", dynamicSize(inlinedEndorsement)),
          req("op2", dynamicSize(inlinedEndorsement)),
          req("slot", uint16),
        ]),
      ),
    ),
    kindCase(
      3,
      "double_baking_evidence",
      objOf(kindFields("double_baking_evidence", [req("bh1", dynamicSize(blockHeader)), req("bh2", dynamicSize(blockHeader))])),
    ),
    kindCase(4, "activate_account", objOf(kindFields("activate_account", [req("pkh", ed25519PublicKeyHash), req("secret", fixedBytes(20))]))),
    kindCase(
      5,
      "proposals",
      objOf(kindFields("proposals", [req("source", publicKeyHash), req("period", int32), req("proposals", list(protocolHash))])),
    ),
    kindCase(
      6,
      "ballot",
      objOf(
        kindFields("ballot", [req("source", publicKeyHash), req("period", int32), req("proposal", protocolHash), req("ballot", ballot)]),
      ),
    ),
    managerCase(107, "reveal", revealFields, true),
    managerCase(108, "transaction", transactionFields, true),
    managerCase(109, "origination", originationFields, true),
    managerCase(110, "delegation", delegationFields, true),
    kindCase(17, "failing_noop", objOf(kindFields("failing_noop", [req("arbitrary", string)]))),
    managerCase(111, "register_global_constant", registerGlobalConstantFields, true),
  ]),
);

/** Validation pass of an operation's contents: 0 endorsements, 1 votes, 2 anonymous, 3 managers; undefined for failing_noop. */
export function validationPass(contents: readonly OperationContents[]): number | undefined {
  const first = contents[0];
  if (first === undefined) return undefined;
  switch (first.kind) {
    case "endorsement":
    case "endorsement_with_slot":
      return 0;
    case "proposals":
    case "ballot":
      return 1;
    case "seed_nonce_revelation":
    case "double_endorsement_evidence":
    case "double_baking_evidence":
    case "activate_account":
      return 2;
    case "failing_noop":
      return undefined;
    default:
      return 3;
  }
}

/** Number of extra reveal bytes skipped by the lenient contents decoder in the current decode. */
let lenientSkips = 0;

function contentsList(lenient: boolean): Codec<OperationContents[]> {
  const strict = variableList(operationContents);
  if (!lenient) return strict;
  return makeCodec<OperationContents[]>({
    size: strict.size,
    desc: strict.desc,
    toJson: strict.toJson,
    fromJson: strict.fromJson,
    write: strict.write,
    read(r) {
      const out: OperationContents[] = [];
      while (r.pos < r.end) {
        let c: OperationContents;
        try {
          c = operationContents.read(r);
        } catch (e) {
          throw withPath(e, out.length);
        }
        out.push(c);
        // Taquito 24+ appends the absent `proof` option (0x00) of later protocols to reveals.
        if (c.kind === "reveal" && r.pos < r.end && r.bytes[r.pos] === 0x00) {
          const next = r.pos + 1 < r.end ? r.bytes[r.pos + 1]! : -1;
          if (next === -1 || (next >= 0x6b && next <= 0x6f)) {
            r.pos++;
            lenientSkips++;
          }
        }
      }
      return out;
    },
    schema: strict.schema,
  });
}

const contents = contentsList(false);

function isZeroSignature(s: string): boolean {
  const b = signatureBytes(s);
  return b !== undefined && b.every((x) => x === 0);
}

/** An operation's signature where 64 zero bytes mean "none" (value `undefined`). */
const optionalSignature: Codec<string | undefined> = allowAbsent(
  conv<string | undefined, string>((v) => v ?? ZERO_SIGNATURE, (s) => (isZeroSignature(s) ? undefined : s), signature),
);

function signedOperation(list: Codec<OperationContents[]>): Codec<Operation> {
  return mergeObjs(
    operationShellHeader,
    def("011-PtHangz2.operation.alpha.contents_and_signature", obj(req("contents", list), req("signature", optionalSignature))),
  ) as Codec<Operation>;
}

/** Signed operation codec (`011-PtHangz2.operation`): branch (32) ‖ contents ‖ signature (64). */
export const operation: Codec<Operation> = signedOperation(contents);

/** Unsigned operation codec (`011-PtHangz2.operation.unsigned`): branch ‖ contents. */
export const unsignedOperation: Codec<UnsignedOperation> = def(
  "011-PtHangz2.operation.alpha.unsigned_operation",
  mergeObjs(operationShellHeader, obj(req("contents", contents))),
);

/** Raw operation codec (`011-PtHangz2.operation.raw`): `{branch, data}`. */
export const rawHangzhouOperation: Codec<RawOperation> = rawOperation;

/** Protocol data of an operation (contents and signature, without the branch). */
export const operationProtocolData: Codec<{ contents: OperationContents[]; signature?: string }> = def(
  "011-PtHangz2.operation.alpha.contents_and_signature",
  obj(req("contents", contents), req("signature", optionalSignature)),
) as Codec<{ contents: OperationContents[]; signature?: string }>;

const lenientOperation = signedOperation(contentsList(true));

/** Result of {@link decodeInjectedOperation}. */
export interface InjectedOperation {
  /** The operation, as Hangzhou encodes it. */
  operation: Operation;
  /**
   * Number of extra 0x00 bytes skipped after reveals (Taquito 24+ forges the `proof` option of later
   * protocols). When non-zero, the signature was made over the injected bytes, not over the
   * Hangzhou re-encoding: verify it (and hash the operation) over the bytes as received.
   */
  extraRevealBytes: number;
}

/**
 * Decodes operation bytes as injected by clients: Hangzhou's encoding, also accepting a 0x00
 * byte after a reveal's public key when it ends the contents or precedes a manager operation.
 */
export function decodeInjectedOperation(bytes: Uint8Array): InjectedOperation {
  lenientSkips = 0;
  const r = new Reader(bytes);
  const operation = lenientOperation.read(r);
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} unexpected trailing bytes`);
  const extraRevealBytes = lenientSkips;
  lenientSkips = 0;
  return { operation, extraRevealBytes };
}

/** Manager operation of an internal operation (no manager fields). */
export type InternalManagerOperation =
  | { kind: "reveal"; public_key: string }
  | { kind: "transaction"; amount: bigint; destination: string; parameters?: Parameters }
  | { kind: "origination"; balance: bigint; delegate?: string; script: Script }
  | { kind: "delegation"; delegate?: string }
  | { kind: "register_global_constant"; value: Micheline };

/** An operation emitted by a contract. */
export type InternalOperation = { source: string; nonce: number } & InternalManagerOperation;

const internalManagerOperation: Codec<InternalManagerOperation> = union<InternalManagerOperation>([
  managerCase(0, "reveal", revealFields, false),
  managerCase(1, "transaction", transactionFields, false),
  managerCase(2, "origination", originationFields, false),
  managerCase(3, "delegation", delegationFields, false),
  managerCase(4, "register_global_constant", registerGlobalConstantFields, false),
]);

/** Internal operation codec (`011-PtHangz2.operation.internal`): source contract, nonce, then the manager operation. */
export const internalOperation: Codec<InternalOperation> = def(
  "011-PtHangz2.operation.alpha.internal_operation",
  mergeObjs(obj(req("source", contractId), req("nonce", uint16)), internalManagerOperation),
) as Codec<InternalOperation>;
