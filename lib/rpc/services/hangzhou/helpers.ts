/**
 * Hangzhou's forge and parse helpers below `{B}` (Octez `plugin.ml`, modules `Forge` and
 * `Parse`), and the shell's `forge_block_header` (`block_services.ml`):
 *
 * - `POST helpers/forge/operations`: an unsigned operation `{branch, contents}` → the hex of
 *   branch ‖ contents, the bytes a client signs (with watermark 0x03) and then injects with the
 *   signature appended.
 * - `POST helpers/parse/operations`: `{operations: [{branch, data}], check_signature?}` → the
 *   operations as JSON (`branch`, `contents`, `signature`). Octez's `check_signature` is a no-op
 *   (a FIXME in v12): it is accepted and ignored here too. Bytes forged by Taquito 24+ (an extra
 *   0x00 after a reveal's public key) are read as the client meant them.
 * - `POST helpers/forge/protocol_data`: `{priority, nonce_hash?, proof_of_work_nonce?,
 *   liquidity_baking_escape_vote?}` → `{protocol_data}`, the unsigned protocol data in hex.
 * - `POST helpers/forge_block_header` (and `helpers/forge/block_header`, the path of the early
 *   layout's `/forge_block_header`): a shell header with `protocol_data` in hex → `{block}`.
 * - `POST helpers/parse/block`: a shell header with `protocol_data` → the protocol data as JSON.
 * - `GET helpers/complete/<prefix>` (`../complete.ts`), with Hangzhou's contracts as completions.
 *
 * Errors as Octez: a body that does not decode is a 400 from the RPC machinery (an operation
 * list that is empty or batches a non-manager operation included, as Octez's guard on contents
 * lists); bytes that do not parse as an operation answer `proto.011-PtHangz2.operation.cannot_parse`;
 * protocol data that does not parse answers a `failure` "Cant_parse_protocol_data" (Octez raises
 * that exception).
 * @module
 */
import { rawBlockHeader } from "../../../encoding/block-header.ts";
import { bytes, fixedBytes } from "../../../encoding/bytes.ts";
import { decodeBinary, DecodeError, encodeBinary } from "../../../encoding/codec.ts";
import { conv } from "../../../encoding/conv.ts";
import type { Codec } from "../../../encoding/core.ts";
import { dynamicSize } from "../../../encoding/dynamic.ts";
import { protocolData, protocolDataContents } from "../../../encoding/hangzhou/block-header.ts";
import {
  decodeInjectedOperation,
  operation,
  unsignedOperation,
  type Operation,
  type OperationContents,
  type UnsignedOperation,
} from "../../../encoding/hangzhou/operation.ts";
import { nonceHash } from "../../../encoding/hashes.ts";
import { bool, uint16 } from "../../../encoding/integers.ts";
import { list } from "../../../encoding/list.ts";
import { dft, obj, opt, req } from "../../../encoding/object.ts";
import { rawOperation } from "../../../encoding/operation.ts";
import { failure } from "../../../errors/mod.ts";
import { protoError } from "../../../protocols/hangzhou/proto-error.ts";
import { B58 } from "../../../encoding/base58.ts";
import { listContracts } from "../../../protocols/hangzhou/storage/contract.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import type { PrefixResolver } from "../complete.ts";
import { protoContextOf } from "./context.ts";

/** `proto.011-PtHangz2.operation.cannot_parse`: operation bytes that Hangzhou cannot read. */
export const cannotParseOperation = protoError({
  id: "operation.cannot_parse",
  kind: "branch",
  title: "Cannot parse operation",
  description: "The operation is ill-formed or for another protocol version",
});

/**
 * Octez's guard on contents lists (`Operation_repr.of_list`): at least one content, and only
 * manager operations in a batch. Returns the reason a list is refused, or `undefined`.
 */
export function contentsListError(contents: readonly OperationContents[]): string | undefined {
  if (contents.length === 0) return "Operation lists should not be empty.";
  if (contents.length > 1 && contents.some((c) => !isManager(c))) {
    return "Operation list of length > 1 should only contains manager operations.";
  }
  return undefined;
}

const MANAGER_KINDS: ReadonlySet<string> = new Set(["reveal", "transaction", "origination", "delegation", "register_global_constant"]);

function isManager(c: OperationContents): boolean {
  return MANAGER_KINDS.has(c.kind);
}

/** `codec` with Octez's guard on the contents list (`Operation_repr.of_list`) when decoding: empty lists and mixed batches refused. */
export function guarded<T extends { contents: OperationContents[] }>(codec: Codec<T>): Codec<T> {
  return conv<T, T>(
    (v) => v,
    (v) => {
      const reason = contentsListError(v.contents);
      if (reason !== undefined) throw new RangeError(reason);
      return v;
    },
    codec,
  );
}

/** The unsigned operation as `forge/operations` reads it: Octez's guard on the contents list included. */
const forgeInput: Codec<UnsignedOperation> = guarded(unsignedOperation);

/** The forge/protocol_data input: priority, optional nonce hash, proof-of-work nonce (zeros), escape vote (false). */
const protocolDataInput = obj(
  req("priority", uint16),
  opt("nonce_hash", nonceHash),
  dft("proof_of_work_nonce", fixedBytes(8), new Uint8Array(8)),
  dft("liquidity_baking_escape_vote", bool, false),
);

/** The parse/operations input. */
const parseOperationsInput = obj(req("operations", list(dynamicSize(rawOperation))), opt("check_signature", bool));

/**
 * Reads one raw operation as Hangzhou does, tolerating Taquito 24+'s extra reveal byte; throws
 * `operation.cannot_parse` otherwise (Octez's contents guard included).
 */
export function parseOperation(branch: string, data: Uint8Array): Operation {
  const raw = encodeBinary(rawOperation, { branch, data });
  let op: Operation;
  try {
    op = decodeInjectedOperation(raw).operation;
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError || e instanceof TypeError) throw cannotParseOperation.error(undefined);
    throw e;
  }
  if (contentsListError(op.contents) !== undefined) throw cannotParseOperation.error(undefined);
  return op;
}

/** Forge and parse services of Hangzhou. */
export function forgeParseServices(): Directory<BlockCtx> {
  return new Directory<BlockCtx>().register(
    service({
      method: "POST",
      path: ["helpers", "forge", "operations"],
      description: "Forge an operation",
      input: forgeInput,
      output: bytes,
      handler: ({ body }) => encodeBinary(unsignedOperation, body),
    }),
    service({
      method: "POST",
      path: ["helpers", "forge", "protocol_data"],
      description: "Forge the protocol-specific part of a block header",
      input: protocolDataInput,
      output: obj(req("protocol_data", bytes)),
      handler: ({ body }) => {
        const contents = {
          priority: body.priority,
          proof_of_work_nonce: body.proof_of_work_nonce,
          liquidity_baking_escape_vote: body.liquidity_baking_escape_vote,
          ...(body.nonce_hash === undefined ? {} : { seed_nonce_hash: body.nonce_hash }),
        };
        return { protocol_data: encodeBinary(protocolDataContents, contents) };
      },
    }),
    service({
      method: "POST",
      path: ["helpers", "parse", "operations"],
      description: "Parse operations",
      input: parseOperationsInput,
      output: list(dynamicSize(operation)),
      // Octez v12 accepts check_signature and checks nothing (a FIXME in its plugin).
      handler: ({ body }) => body.operations.map((o) => parseOperation(o.branch, o.data)),
    }),
    service({
      method: "POST",
      path: ["helpers", "parse", "block"],
      description: "Parse a block",
      input: rawBlockHeader,
      output: protocolData,
      handler: ({ body }) => {
        try {
          return decodeBinary(protocolData, body.protocol_data);
        } catch (e) {
          if (e instanceof DecodeError || e instanceof RangeError) throw failure.error({ msg: "Cant_parse_protocol_data" });
          throw e;
        }
      },
    }),
  );
}


function contractResolver(kind: PrefixResolver["kind"]): PrefixResolver {
  return { kind, candidates: (ctx) => listContracts(protoContextOf(ctx)) };
}

/** Hangzhou's completions (Octez's `complete_b58prefix`): the contracts of `{B}`'s context, implicit (`tz1`, `tz2`, `tz3`) and originated (`KT1`). */
export const HANGZHOU_PREFIX_RESOLVERS: readonly PrefixResolver[] = Object.freeze([
  contractResolver(B58.ed25519PublicKeyHash),
  contractResolver(B58.secp256k1PublicKeyHash),
  contractResolver(B58.p256PublicKeyHash),
  contractResolver(B58.contractHash),
]);

/** The helpers Hangzhou offers below `{B}`: forge and parse (completion and `forge_block_header` are the shell's). */
export function hangzhouHelperServices(): Directory<BlockCtx> {
  return forgeParseServices();
}
