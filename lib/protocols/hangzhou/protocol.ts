/**
 * Protocol 011 Hangzhou behind the shell's `Protocol` interface.
 * @module
 */
import { type RawBlockHeader, rawBlockHeader } from "../../encoding/block-header.ts";
import { decodeBinary, encodeBinary } from "../../encoding/codec.ts";
import { protocolData as protocolDataCodec } from "../../encoding/hangzhou/block-header.ts";
import { validationPass } from "../../encoding/hangzhou/operation.ts";
import type { Protocol, SignatureWaived } from "../../shell/protocol.ts";
import { blockHashOf } from "./apply/baking.ts";
import { parseOperation } from "./apply/parse.ts";
import { checkApplicationHeader, HangzhouBlock, MAX_OPERATIONS_TTL, type Mode } from "./apply/block.ts";
import { FIXED_CONSTANTS } from "./constants.ts";
import { initHangzhou } from "./init.ts";
import { lastAllowedForkLevel } from "./level.ts";

/** Hangzhou's protocol hash. */
export const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

/** Hangzhou's maximal block header length (Octez `Block_header.max_header_length`). */
export const MAX_BLOCK_HEADER_LENGTH = 239;

/** How a complete header is applied: its decoded protocol data and its hash. */
function applicationMode(header: RawBlockHeader): Extract<Mode, { kind: "application" }> {
  const { protocol_data, ...shell } = header;
  const data = decodeBinary(protocolDataCodec, protocol_data);
  return { kind: "application", header: { ...shell, ...data }, hash: blockHashOf(encodeBinary(rawBlockHeader, header)) };
}

/** The block options that pass the shell's signature waivers on, when there are some. */
function waiving(signatureWaived: SignatureWaived | undefined): { signatureWaived?: SignatureWaived } {
  return signatureWaived === undefined ? {} : { signatureWaived };
}

/** Protocol 011 Hangzhou. */
export const hangzhouProtocol: Protocol = {
  hash: HANGZHOU,
  environmentVersion: 3,
  operationListQuota: [
    { max_size: 2048 * 2048, max_op: 2048 },
    { max_size: 32 * 1024 },
    { max_size: FIXED_CONSTANTS.max_anon_ops_per_block * 1024, max_op: FIXED_CONSTANTS.max_anon_ops_per_block },
    { max_size: 512 * 1024 },
  ],
  maxBlockHeaderLength: MAX_BLOCK_HEADER_LENGTH,
  maxOperationDataLength: FIXED_CONSTANTS.max_operation_data_length,
  acceptablePasses(op) {
    const { contents } = parseOperation(op);
    const pass = validationPass(contents);
    return pass === undefined ? [] : [pass];
  },
  beginApplication({ chainId, predecessor, header, signatureWaived }) {
    return HangzhouBlock.begin(chainId, predecessor, header.timestamp, applicationMode(header), waiving(signatureWaived));
  },
  sealedFrom(protocolData, built) {
    try {
      const a = decodeBinary(protocolDataCodec, protocolData);
      const b = decodeBinary(protocolDataCodec, built);
      return a.priority === b.priority && a.seed_nonce_hash === b.seed_nonce_hash && a.liquidity_baking_escape_vote === b.liquidity_baking_escape_vote;
    } catch {
      return false;
    }
  },
  checkHeader({ chainId, predecessor, header }) {
    return checkApplicationHeader(chainId, predecessor, applicationMode(header));
  },
  beginConstruction({ chainId, predecessor, timestamp, protocolData, signatureWaived }) {
    if (protocolData === undefined) return HangzhouBlock.begin(chainId, predecessor, timestamp, { kind: "partial_construction" }, waiving(signatureWaived));
    const { signature: _, ...contents } = decodeBinary(protocolDataCodec, protocolData);
    return HangzhouBlock.begin(chainId, predecessor, timestamp, { kind: "full_construction", contents }, waiving(signatureWaived));
  },
  init({ context, shell }) {
    const { context: initialised, protoContext } = initHangzhou(context, { level: shell.level, timestamp: shell.timestamp });
    return Promise.resolve({
      context: initialised,
      fitness: shell.fitness,
      message: "",
      maxOperationsTtl: MAX_OPERATIONS_TTL,
      lastAllowedForkLevel: lastAllowedForkLevel(protoContext.eras, protoContext.level, protoContext.constants.preserved_cycles),
    });
  },
};
