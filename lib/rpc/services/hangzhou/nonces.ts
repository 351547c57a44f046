/**
 * Nonces, seed and liquidity baking at `{B}` (Octez 011 `alpha_services.ml`):
 * `context/nonces/<level>` (`{"nonce"}` revealed, `{"hash"}` committed and not revealed, `{}`
 * otherwise), `POST context/seed` (the seed of B's cycle) and
 * `context/liquidity_baking/cpmm_address`.
 * @module
 */
import { fixedBytes } from "../../../encoding/bytes.ts";
import type { Codec } from "../../../encoding/core.ts";
import { nonceHash } from "../../../encoding/hashes.ts";
import { obj, req } from "../../../encoding/object.ts";
import { tagged, union } from "../../../encoding/union.ts";
import { contractId, seed } from "../../../encoding/hangzhou/basic.ts";
import { givenLevel } from "../../../protocols/hangzhou/level.ts";
import { getCpmmAddress } from "../../../protocols/hangzhou/storage/liquidity-baking.ts";
import { findNonce } from "../../../protocols/hangzhou/storage/nonce.ts";
import { seedForCycle } from "../../../protocols/hangzhou/storage/seed.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { levelArg, protoContextOf } from "./context.ts";

/** What `context/nonces/<level>` says of a level's nonce. */
export type NonceInfo = { nonce: Uint8Array } | { hash: string } | Record<string, never>;

/** Codec of {@link NonceInfo} (`Nonce.info_encoding`: Revealed, Missing, Forgotten). */
export const nonceInfo: Codec<NonceInfo> = union<NonceInfo>([
  tagged<NonceInfo, { nonce: Uint8Array }>(0, "Revealed", obj(req("nonce", fixedBytes(32))), (v) => ("nonce" in v ? (v as { nonce: Uint8Array }) : undefined), (v) => v),
  tagged<NonceInfo, { hash: string }>(1, "Missing", obj(req("hash", nonceHash)), (v) => ("hash" in v ? (v as { hash: string }) : undefined), (v) => v),
  tagged<NonceInfo, Record<string, never>>(
    2,
    "Forgotten",
    obj() as unknown as Codec<Record<string, never>>,
    (v) => ("nonce" in v || "hash" in v ? undefined : {}),
    () => ({}),
  ),
]);

/** The nonce, seed and liquidity baking services of Hangzhou. */
export function nonceServices(): Directory<BlockCtx> {
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["context", "nonces", levelArg],
      description: "Info about the nonce of a previous block.",
      output: nonceInfo,
      handler: ({ ctx, params: [raw] }): NonceInfo => {
        const pc = protoContextOf(ctx);
        const s = findNonce(pc, givenLevel(pc.eras, raw));
        if (s === undefined) return {};
        return s.kind === "revealed" ? { nonce: s.nonce } : { hash: s.nonceHash };
      },
    }),
    service({
      method: "POST",
      path: ["context", "seed"],
      description: "Seed of the cycle to which the block belongs.",
      input: obj(),
      output: seed,
      handler: ({ ctx }) => {
        const pc = protoContextOf(ctx);
        return seedForCycle(pc, pc.level.cycle);
      },
    }),
    service({
      method: "GET",
      path: ["context", "liquidity_baking", "cpmm_address"],
      description: "Liquidity baking CPMM address",
      output: contractId,
      handler: ({ ctx }) => getCpmmAddress(protoContextOf(ctx)),
    }),
  );
}
