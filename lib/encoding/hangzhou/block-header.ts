/**
 * Hangzhou block headers (`block_header_repr.ml`): the protocol data (priority, proof-of-work
 * nonce, optional seed nonce hash, liquidity-baking escape vote, signature), its unsigned form,
 * and the full header (shell header + protocol data) in its signed, unsigned and raw variants.
 * @module
 */
import type { Codec } from "../core.ts";
import { def } from "../conv.ts";
import { fixedBytes } from "../bytes.ts";
import { nonceHash } from "../hashes.ts";
import { bool, uint16 } from "../integers.ts";
import { signature } from "../keys.ts";
import { mergeObjs, obj, opt, req } from "../object.ts";
import { rawBlockHeader, shellHeader, type RawBlockHeader, type ShellHeader } from "../block-header.ts";

/** The signed part of Hangzhou protocol data. */
export interface ProtocolDataContents {
  /** Baking priority (0 for the first baker of the level). */
  priority: number;
  /** 8 bytes making the header's proof of work. */
  proof_of_work_nonce: Uint8Array;
  /** Commitment to a seed nonce (`nce…`), at levels that require one. */
  seed_nonce_hash?: string;
  /** The baker's liquidity-baking escape vote. */
  liquidity_baking_escape_vote: boolean;
}

/** Hangzhou protocol data. */
export interface ProtocolData extends ProtocolDataContents {
  /** The baker's signature (`sig…` when read from binary). */
  signature: string;
}

/** Unsigned protocol data codec (`011-PtHangz2.block_header.alpha.unsigned_contents`). */
export const protocolDataContents: Codec<ProtocolDataContents> = def(
  "011-PtHangz2.block_header.alpha.unsigned_contents",
  obj(
    req("priority", uint16),
    req("proof_of_work_nonce", fixedBytes(8)),
    opt("seed_nonce_hash", nonceHash),
    req("liquidity_baking_escape_vote", bool),
  ),
);

/** Protocol data codec (`011-PtHangz2.block_header.alpha.signed_contents`): the contents then the 64-byte signature. */
export const protocolData: Codec<ProtocolData> = def(
  "011-PtHangz2.block_header.alpha.signed_contents",
  mergeObjs(protocolDataContents, obj(req("signature", signature))),
);

/** A full Hangzhou block header. */
export interface BlockHeader extends ShellHeader, ProtocolData {}

/** A Hangzhou block header without its signature (what the baker signs). */
export interface UnsignedBlockHeader extends ShellHeader, ProtocolDataContents {}

/** Full block header codec (`011-PtHangz2.block_header`, schema `011-PtHangz2.block_header.alpha.full_header`). */
export const blockHeader: Codec<BlockHeader> = def(
  "011-PtHangz2.block_header.alpha.full_header",
  mergeObjs(shellHeader, protocolData),
);

/** Unsigned block header codec (`011-PtHangz2.block_header.unsigned`): shell header then the unsigned contents. */
export const unsignedBlockHeader: Codec<UnsignedBlockHeader> = mergeObjs(shellHeader, protocolDataContents);

/** Raw block header codec (`011-PtHangz2.block_header.raw`): shell header then protocol data as hex. */
export const rawHeader: Codec<RawBlockHeader> = rawBlockHeader;
