/**
 * `{B}/context/raw/json[/<path>]?depth=` — Hangzhou's view of its own storage as JSON.
 *
 * Octez builds this tree from the protocol's storage description (`Storage_description`): keys
 * appear decoded (`tz1…` rather than bytes) and values in their JSON encodings. Ours is the same
 * idea over our context layout (`lib/protocols/hangzhou/storage/layout.ts`):
 * - paths are those of `/context/raw/bytes` (index segments as stored: a contract is the hex of
 *   its binary id, a delegate `<curve>/<hex>`);
 * - a leaf whose key has a known type shows that value's JSON (tez and counters as strings,
 *   keys, key hashes, contracts in Base58, scripts as Micheline JSON, constants, voting period,
 *   nonce status…); members of sets show `{}` (Octez's `unit`); any other leaf its bytes in hex;
 * - a directory is an object of its entries; `depth` counts as Octez's does for named
 *   directories (the path itself is shown at depth + 1): `depth=0` (the default) shows a
 *   directory's leaves and its subdirectories as `{}`, `depth=1` one level more, and so on;
 *   `depth=-1` shows a directory as `{}`.
 * A path with nothing there is 404.
 * @module
 */
import { decodeBinary, type Json } from "../../../encoding/codec.ts";
import { B58, b58encode } from "../../../encoding/base58.ts";
import { toHex } from "../../../encoding/hex.ts";
import { formatPublicKey } from "../../../crypto/keys.ts";
import { ballot, votingPeriod, votingPeriodKind } from "../../../encoding/hangzhou/basic.ts";
import { lazyExpression, expression } from "../../../encoding/hangzhou/script.ts";
import { makeCodec, type Codec } from "../../../encoding/core.ts";
import { parametricConstants } from "../../../protocols/hangzhou/constants.ts";
import { cycleEras } from "../../../protocols/hangzhou/level.ts";
import {
  contractOfBinary,
  decodeInt32,
  decodeManager,
  decodePkh,
  decodePublicKey,
  decodeTez,
  decodeUint16,
  decodeZ,
} from "../../../protocols/hangzhou/storage/layout.ts";
import { decodeNonceStatus } from "../../../protocols/hangzhou/storage/nonce.ts";
import type { Context } from "../../../store/context/mod.ts";
import { intArg } from "../../arg.ts";
import { Directory } from "../../directory.ts";
import { query, single } from "../../query.ts";
import { service, tail } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { blockContext, contextPathArg } from "../shell-blocks.ts";

type Decoder = (b: Uint8Array) => Json;

const str = (v: bigint | number): Json => String(v);
const SET_MEMBER: Decoder = () => ({});
const utf8: Decoder = (b) => new TextDecoder().decode(b);
const micheline: Decoder = (b) => expression.toJson(decodeBinary(lazyExpression, b));

/** Value types by path pattern (`*` matches one segment), our layout's keys. */
const TYPES: readonly (readonly [string, Decoder])[] = [
  ["version", utf8],
  ["v1/constants", (b) => parametricConstants.toJson(decodeBinary(parametricConstants, b))],
  ["v1/cycle_eras", (b) => cycleEras.toJson(decodeBinary(cycleEras, b))],
  ["block_priority", decodeUint16],
  ["liquidity_baking_escape_ema", decodeInt32],
  ["liquidity_baking_cpmm_address", contractOfBinary],
  ["big_maps/next", (b) => str(decodeZ(b))],
  ["sapling/next", (b) => str(decodeZ(b))],
  ["contracts/global_counter", (b) => str(decodeZ(b))],
  ["contracts/index/*/balance", (b) => str(decodeTez(b))],
  ["contracts/index/*/counter", (b) => str(decodeZ(b))],
  ["contracts/index/*/change", (b) => str(decodeTez(b))],
  ["contracts/index/*/paid_bytes", (b) => str(decodeZ(b))],
  ["contracts/index/*/used_bytes", (b) => str(decodeZ(b))],
  ["contracts/index/*/len/code", decodeInt32],
  ["contracts/index/*/len/storage", decodeInt32],
  ["contracts/index/*/data/code", micheline],
  ["contracts/index/*/data/storage", micheline],
  ["contracts/index/*/delegate", decodePkh],
  ["contracts/index/*/delegate_desactivation", decodeInt32],
  ["contracts/index/*/inactive_delegate", SET_MEMBER],
  ["contracts/index/*/roll_list", decodeInt32],
  ["contracts/index/*/delegated/*", SET_MEMBER],
  ["contracts/index/*/frozen_balance/*/*", (b) => str(decodeTez(b))],
  [
    "contracts/index/*/manager",
    (b) => {
      const m = decodeManager(b);
      return m.kind === "hash" ? m.pkh : formatPublicKey(m.publicKey);
    },
  ],
  ["delegates/*/*", SET_MEMBER],
  ["active_delegates_with_rolls/*/*", SET_MEMBER],
  ["delegates_with_frozen_balance/*/*/*", SET_MEMBER],
  ["rolls/next", decodeInt32],
  ["rolls/limbo", decodeInt32],
  ["rolls/index/*/successor", decodeInt32],
  ["rolls/owner/current/*", (b) => formatPublicKey(decodePublicKey(b))],
  ["rolls/owner/snapshot/*/*/*", (b) => formatPublicKey(decodePublicKey(b))],
  ["cycle/*/random_seed", toHex],
  ["cycle/*/roll_snapshot", decodeUint16],
  ["cycle/*/last_roll/*", decodeInt32],
  [
    "cycle/*/nonces/*",
    (b): Json => {
      const s = decodeNonceStatus(b);
      return s.kind === "revealed"
        ? { nonce: toHex(s.nonce) }
        : { nonce_hash: s.nonceHash, delegate: s.delegate, rewards: str(s.rewards), fees: str(s.fees) };
    },
  ],
  ["commitments/*", (b) => str(decodeTez(b))],
  ["votes/participation_ema", decodeInt32],
  ["votes/current_period", (b) => votingPeriod.toJson(decodeBinary(votingPeriod, b))],
  ["votes/pred_period_kind", (b) => votingPeriodKind.toJson(decodeBinary(votingPeriodKind, b))],
  ["votes/listings_size", decodeInt32],
  ["votes/listings/*/*", decodeInt32],
  ["votes/ballots/*/*", (b) => ballot.toJson(decodeBinary(ballot, b))],
  ["votes/proposals_count/*/*", decodeUint16],
  ["votes/current_proposal", (b) => b58encode(B58.protocolHash, b)],
];

const PATTERNS = TYPES.map(([p, d]) => [p.split("/"), d] as const);

/** The JSON of the leaf at `path`: its decoded value when its type is known (and decodes), else hex. */
export function leafJson(path: readonly string[], bytes: Uint8Array): Json {
  for (const [pattern, decode] of PATTERNS) {
    if (pattern.length !== path.length || !pattern.every((s, i) => s === "*" || s === path[i])) continue;
    try {
      return decode(bytes);
    } catch {
      break;
    }
  }
  return toHex(bytes);
}

/** The JSON view of what is at `path`, `depth` levels below it counted as Octez does; `undefined` if nothing is there. */
export function rawJson(context: Context, path: readonly string[], depth: number): Json | undefined {
  const go = (p: readonly string[], i: number): Json | undefined => {
    if (i < 0) return undefined;
    const kind = context.kind(p);
    if (kind === "leaf") return leafJson(p, context.get(p)!);
    if (kind !== "dir" && p.length > 0) return undefined;
    const out: { [k: string]: Json } = {};
    for (const name of context.listKeys(p)) {
      const v = go([...p, name], i - 1);
      if (v !== undefined) out[name] = v;
    }
    return out;
  };
  return go(path, depth + 1);
}

const anyJsonCodec: Codec<Json> = makeCodec<Json>({
  title: "raw_json",
  size: { kind: "dynamic" },
  desc: { t: "leaf", layout: { kind: "String" } },
  toJson: (v) => v,
  fromJson: (j) => j,
  write(out, v) {
    const b = new TextEncoder().encode(JSON.stringify(v));
    out.u32(b.length);
    out.raw(b);
  },
  read(r) {
    return JSON.parse(new TextDecoder().decode(r.take(r.u32()))) as Json;
  },
  schema: () => ({}),
});

/** The raw JSON view service of Hangzhou. */
export function rawJsonServices(): Directory<BlockCtx> {
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["context", "raw", "json", tail(contextPathArg)],
      description: "The protocol's view of the context: values decoded where their type is known (see the documentation of lib/rpc/services/hangzhou/raw.ts).",
      query: query({ depth: single(intArg, 0) }),
      output: anyJsonCodec,
      optional: true,
      handler: ({ ctx, params: [path], query: q }) => rawJson(blockContext(ctx), path, q.depth),
    }),
  );
}
