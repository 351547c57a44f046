/**
 * The services of `{B}/context/contracts/<id>/…` that read a contract's script with the Michelson
 * type checker (Octez `contract_services.ml` and `plugin.ml`'s `Contract` module); `script` and
 * `storage` themselves are in `contracts.ts`.
 *
 * - `GET entrypoints`: the entrypoints of the contract's parameter type (legacy mode), names in
 *   decreasing order, with `unreachable` paths when there are any; 404 without a script.
 * - `GET entrypoints/<name>`: that entrypoint's type; 404 without a script or such entrypoint.
 * - `POST script/normalized` `{unparsing_mode}`: the script rebuilt from its parsed form (Octez
 *   `unparse_script`: parameter type with its root annotation, storage type, code with `PUSH`
 *   data normalised, views) and its storage in that mode; `null` without a script.
 * - `POST storage/normalized` `{unparsing_mode}`: the storage in that mode; `null` without a script.
 * - `POST big_map_get` `{key, type}` (deprecated): the value bound to `key` in the contract's
 *   only big map, readable; `null` when the storage holds no big map or several, or the key is
 *   unbound; 404 without a script. The key is checked against `type` first (a protocol error
 *   otherwise).
 *
 * Everything runs without gas limit on a copy of the block's protocol context.
 * @module
 */
import { expression, script, type Script } from "../../../encoding/hangzhou/script.ts";
import type { Micheline, MichelinePrim } from "../../../encoding/micheline.ts";
import { obj, req } from "../../../encoding/object.ts";
import { bigMapKeyHash } from "../../../michelson/lazy-storage.ts";
import { parseComparableData, parseData } from "../../../michelson/data/parse-data.ts";
import { parseComparableTy, unparseTy } from "../../../michelson/data/parse-type.ts";
import { unparseData } from "../../../michelson/data/unparse-data.ts";
import { findEntrypoint } from "../../../michelson/script/entrypoints.ts";
import { parseScript, type ParsedScript } from "../../../michelson/script/script.ts";
import type { HangzhouScriptContext } from "../../../protocols/hangzhou/michelson/script-context.ts";
import { storedBigMapIds } from "../../../protocols/hangzhou/michelson/stored-lazy-ids.ts";
import { getScript, type StoredScript } from "../../../protocols/hangzhou/storage/contract.ts";
import { Directory } from "../../directory.ts";
import { stringArg } from "../../arg.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { bigMapGet } from "./big-maps.ts";
import { contractArg, nullable } from "./context.ts";
import { entrypointsListing, unparsingMode, type UnparsingMode } from "./scripts-codecs.ts";
import { entrypointsOf, helperContext, normalizeCode, scriptParameterType } from "./scripts-helpers.ts";

/** A contract's stored script and a script context to read it, or `undefined` without a script. */
function withScript(ctx: BlockCtx, contract: string): { sc: HangzhouScriptContext; stored: StoredScript } | undefined {
  const sc = helperContext(ctx, undefined, true);
  const stored = getScript(sc.pc, contract);
  return stored === undefined ? undefined : { sc, stored };
}

/** The parsed script (legacy mode, forged values allowed in the storage, as `parse_script`). */
function parsedScript(sc: HangzhouScriptContext, stored: StoredScript): ParsedScript {
  return parseScript(sc, stored.code, { legacy: true });
}

/** The storage of a script read with its type and printed in `mode`. */
function storageIn(sc: HangzhouScriptContext, parsed: ParsedScript, storage: Micheline, mode: UnparsingMode): Micheline {
  const v = parseData(sc, parsed.storageTy, storage, { legacy: true, allowForgedTickets: true, allowForgedLazyStorageId: true });
  return unparseData(parsed.storageTy, v, mode, { ctx: sc });
}

/** Octez `unparse_script`: parameter (with its root annotation), storage type, normalised code, then the views in name order. */
export function unparseScript(sc: HangzhouScriptContext, parsed: ParsedScript, storage: Micheline, mode: UnparsingMode): Script {
  const root = parsed.rootName ?? parsed.paramTy.field;
  const param = unparseTy({ ...parsed.paramTy, field: undefined }) as MichelinePrim;
  const paramNode: Micheline = root === undefined || root === "" ? param : { ...param, annots: [...(param.annots ?? []), `%${root}`] };
  const views = [...parsed.viewNodes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const code: Micheline[] = [
    { prim: "parameter", args: [paramNode] },
    { prim: "storage", args: [unparseTy(parsed.storageTy)] },
    { prim: "code", args: [normalizeCode(sc, parsed.parts.code, mode)] },
    ...views.map(([name, v]): Micheline => ({ prim: "view", args: [{ string: name }, v.input, v.output, v.code] })),
  ];
  return { code, storage: storageIn(sc, parsed, storage, mode) };
}

/** The contract-script services of Hangzhou. */
export function contractScriptsServices(): Directory<BlockCtx> {
  const C = ["context", "contracts", contractArg] as const;
  const modeInput = obj(req("unparsing_mode", unparsingMode));
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: [...C, "entrypoints"],
      description: "Return the list of entrypoints of the contract",
      output: entrypointsListing,
      optional: true,
      handler: ({ ctx, params: [c] }) => {
        const s = withScript(ctx, c);
        return s === undefined ? undefined : entrypointsOf(scriptParameterType(s.sc, s.stored.code, true));
      },
    }),
    service({
      method: "GET",
      path: [...C, "entrypoints", stringArg],
      description: "Return the type of the given entrypoint of the contract",
      output: expression,
      optional: true,
      handler: ({ ctx, params: [c, name] }) => {
        const s = withScript(ctx, c);
        if (s === undefined) return undefined;
        const paramTy = scriptParameterType(s.sc, s.stored.code, true);
        try {
          return unparseTy(findEntrypoint(paramTy, name).ty);
        } catch {
          return undefined; // Octez answers none for any error of find_entrypoint
        }
      },
    }),
    service({
      method: "POST",
      path: [...C, "script", "normalized"],
      description: "Access the script of the contract and normalize it using the requested unparsing mode.",
      input: modeInput,
      output: nullable(script),
      handler: ({ ctx, params: [c], body }) => {
        const s = withScript(ctx, c);
        return s === undefined ? null : unparseScript(s.sc, parsedScript(s.sc, s.stored), s.stored.storage, body.unparsing_mode);
      },
    }),
    service({
      method: "POST",
      path: [...C, "storage", "normalized"],
      description: "Access the data of the contract and normalize it using the requested unparsing mode.",
      input: modeInput,
      output: nullable(expression),
      handler: ({ ctx, params: [c], body }) => {
        const s = withScript(ctx, c);
        return s === undefined ? null : storageIn(s.sc, parsedScript(s.sc, s.stored), s.stored.storage, body.unparsing_mode);
      },
    }),
    service({
      method: "POST",
      path: [...C, "big_map_get"],
      description: "Access the value associated with a key in a big map of the contract (deprecated).",
      input: obj(req("key", expression), req("type", expression)),
      output: nullable(expression),
      optional: true,
      handler: ({ ctx, params: [c], body }) => {
        const sc = helperContext(ctx, undefined, false);
        const keyTy = parseComparableTy(body.type, { gas: sc.gas });
        const key = parseComparableData(sc, keyTy, body.key);
        const { hash } = bigMapKeyHash(keyTy, key);
        const stored = getScript(sc.pc, c);
        if (stored === undefined) return undefined;
        const parsed = parsedScript(sc, stored);
        const ids = [...storedBigMapIds(parsed.storageTy, stored.storage)];
        if (ids.length !== 1) return null;
        return bigMapGet(sc, ids[0]!, hash, "Readable") ?? null;
      },
    }),
  );
}

/** A contract's script in Readable form (Octez's `info` service), or `undefined` without a script: for `contracts.ts`. */
export function readableScript(ctx: BlockCtx, contract: string): Script | undefined {
  const s = withScript(ctx, contract);
  return s === undefined ? undefined : unparseScript(s.sc, parsedScript(s.sc, s.stored), s.stored.storage, "Readable");
}

/** The readable storage of a contract (Octez's `storage` service), or `undefined` without a script: for `contracts.ts`. */
export function readableStorage(ctx: BlockCtx, contract: string): Micheline | undefined {
  const s = withScript(ctx, contract);
  return s === undefined ? undefined : storageIn(s.sc, parsedScript(s.sc, s.stored), s.stored.storage, "Readable");
}
