/**
 * `{B}/context/big_maps/<id>…` (Octez `contract_services.ml`, `big_map_get` and
 * `big_map_get_all`, and `plugin.ml`'s `Big_map.big_map_get_normalized`):
 *
 * - `GET <id>?offset&length`: the values of a big map, in the context's key order (by key hash),
 *   each read with the map's value type (legacy mode) and printed in readable form; 404 for an
 *   unknown id;
 * - `GET <id>/<script_expr>`: the value bound to the key with that hash, readable; 404 when the
 *   map or the key is unknown;
 * - `POST <id>/<script_expr>/normalized` `{unparsing_mode}`: the same value in the requested mode.
 *
 * Reads run without gas limit on a copy of the block's protocol context. A big map id that is not
 * an integer is a 400 "Cannot parse big map id"; a hash that is not an `expr…` hash a 400.
 * @module
 */
import { B58, b58decode } from "../../../encoding/base58.ts";
import { expression } from "../../../encoding/hangzhou/script.ts";
import { list } from "../../../encoding/list.ts";
import { decodeMicheline, type Micheline } from "../../../encoding/micheline.ts";
import { obj, req } from "../../../encoding/object.ts";
import { parseData } from "../../../michelson/data/parse-data.ts";
import { parseBigMapValueTy } from "../../../michelson/data/parse-type.ts";
import { unparseData } from "../../../michelson/data/unparse-data.ts";
import type { Ty } from "../../../michelson/ty.ts";
import { findBigMapValueBytes } from "../../../protocols/hangzhou/storage/big-map.ts";
import { bigMapPath } from "../../../protocols/hangzhou/storage/layout.ts";
import { base58Arg, makeArg, uintArg, type Arg } from "../../arg.ts";
import { Directory } from "../../directory.ts";
import { optional, query } from "../../query.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { unparsingMode, type UnparsingMode } from "./scripts-codecs.ts";
import { helperContext } from "./scripts-helpers.ts";
import type { HangzhouScriptContext } from "../../../protocols/hangzhou/michelson/script-context.ts";

/** `big_map_id`: an integer (Zarith's `of_string`: optional sign, decimal or 0x/0o/0b). */
export const bigMapIdArg: Arg<bigint> = makeArg({
  name: "big_map_id",
  descr: "A big map identifier",
  parse(text) {
    const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/.exec(text);
    if (m === null) throw new Error("Cannot parse big map id");
    const v = BigInt(m[2]!.replace(/^0[oO]/, "0o").replace(/^0[xX]/, "0x").replace(/^0[bB]/, "0b"));
    return m[1] === "-" ? -v : v;
  },
  print: (v) => v.toString(),
});

/** `script_expr`: a script expression hash (`expr…`). */
export const scriptExprArg: Arg<string> = base58Arg(B58.scriptExprHash, "script_expr");

/** A big map's value type read in legacy mode (`parse_big_map_value_ty`), or `undefined` for an unknown id. */
function valueTypeOf(sc: HangzhouScriptContext, id: bigint): Ty | undefined {
  const b = sc.pc.find(bigMapPath(id, "value_type"));
  if (b === undefined) return undefined;
  return parseBigMapValueTy(decodeMicheline(b), { legacy: true });
}

/** A stored value read with its type (legacy, forged values allowed) and printed in `mode`. */
function normalized(sc: HangzhouScriptContext, t: Ty, value: Micheline, mode: UnparsingMode): Micheline {
  const v = parseData(sc, t, value, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  return unparseData(t, v, mode, { ctx: sc });
}

/**
 * The value bound to key hash `keyHash` in big map `id`, printed in `mode`, or `undefined` when
 * the map or the key is unknown (Octez `do_big_map_get`).
 */
export function bigMapGet(sc: HangzhouScriptContext, id: bigint, keyHash: Uint8Array, mode: UnparsingMode): Micheline | undefined {
  const t = valueTypeOf(sc, id);
  if (t === undefined) return undefined;
  const b = findBigMapValueBytes(sc.pc, id, keyHash);
  if (b === undefined) return undefined;
  return normalized(sc, t, decodeMicheline(b), mode);
}

/** The big map services of Hangzhou. */
export function bigMapsServices(): Directory<BlockCtx> {
  const P = ["context", "big_maps", bigMapIdArg] as const;
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: [...P],
      description:
        "Get the (optionally paginated) list of values in a big map. Order of values is unspecified, but is guaranteed to be consistent.",
      query: query({
        offset: optional(uintArg, "A non-negative integer (greater than or equal to 0). Skip the first [offset] values. Useful in combination with [length] for pagination."),
        length: optional(uintArg, "A non-negative integer (greater than or equal to 0). Only retrieve [length] values. Useful in combination with [offset] for pagination."),
      }),
      output: list(expression),
      optional: true,
      handler: ({ ctx, params: [id], query: q }) => {
        const sc = helperContext(ctx, undefined, true);
        const t = valueTypeOf(sc, id);
        if (t === undefined) return undefined;
        let hashes = sc.pc.listKeys(bigMapPath(id, "contents"));
        const offset = q.offset ?? 0;
        hashes = q.length === undefined ? hashes.slice(offset) : hashes.slice(offset, offset + q.length);
        return hashes.map((h) => normalized(sc, t, decodeMicheline(sc.pc.get(bigMapPath(id, "contents", h, "data"))), "Readable"));
      },
    }),
    service({
      method: "GET",
      path: [...P, scriptExprArg],
      description: "Access the value associated with a key in a big map.",
      output: expression,
      optional: true,
      handler: ({ ctx, params: [id, key] }) => bigMapGet(helperContext(ctx, undefined, true), id, b58decode(B58.scriptExprHash, key), "Readable"),
    }),
    service({
      method: "POST",
      path: [...P, scriptExprArg, "normalized"],
      description: "Access the value associated with a key in a big map, normalize the output using the requested unparsing mode.",
      input: obj(req("unparsing_mode", unparsingMode)),
      output: expression,
      optional: true,
      handler: ({ ctx, params: [id, key], body }) =>
        bigMapGet(helperContext(ctx, undefined, true), id, b58decode(B58.scriptExprHash, key), body.unparsing_mode),
    }),
  );
}
