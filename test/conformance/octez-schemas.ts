/**
 * The schemas the conformance tests use where the OpenAPI files cannot be taken as they are,
 * each built from the files' own components and the Octez v12.4 sources (facts only):
 *
 * - Block-level entries (`/`, `/header`, `/header/protocol_data`, `/metadata`, `/operations…`) of
 *   `hangzhou-openapi.json` describe the genesis protocol's shapes (see
 *   `test/vectors/octez/SOURCES.md`); a Hangzhou block is checked against the `011-PtHangz2.*`
 *   components with the fields that `lib_shell_services/block_services.ml` puts in front.
 * - `pending_operations` in `hangzhou-mempool-openapi.json` lags the v12.4 code: the code's
 *   encoding (block_services.ml, `version_1_encoding`, obj6) has a required `outdated` field with
 *   the shape of `refused`, the snapshot does not list it.
 */
import { type OpenApi, type Schema, withLeadingFields } from "../support/openapi.ts";

/** Protocol 011's hash. */
export const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";

const constant = (value: string): Schema => ({ type: "string", enum: [value] });

/** `GET {B}/header` of a Hangzhou block: protocol, chain_id, hash, then the shell header and Hangzhou's protocol data. */
export function hangzhouHeader(api: OpenApi): Schema {
  return withLeadingFields(api, api.component("011-PtHangz2.block_header.alpha.full_header"), {
    protocol: constant(HANGZHOU),
    chain_id: api.component("Chain_id"),
    hash: api.component("block_hash"),
  });
}

/** `GET {B}/header/protocol_data`: `protocol` then Hangzhou's signed protocol data (block_services.ml, `protocol_data`). */
export function hangzhouProtocolData(api: OpenApi): Schema {
  return withLeadingFields(api, api.component("011-PtHangz2.block_header.alpha.signed_contents"), { protocol: constant(HANGZHOU) });
}

/** One operation of a Hangzhou block: protocol, chain_id, hash, branch, then contents (with receipts) and signature. */
export function hangzhouOperation(api: OpenApi): Schema {
  return withLeadingFields(api, api.component("011-PtHangz2.operation.alpha.operation_with_metadata"), {
    protocol: constant(HANGZHOU),
    chain_id: api.component("Chain_id"),
    hash: api.component("Operation_hash"),
    branch: api.component("block_hash"),
  });
}

/**
 * One element of `implicit_operations_results` (apply_results.ml, `successful_manager_operation_result`):
 * `kind` then the fields of the `Applied` case of that kind's operation result, without `status`.
 */
export function successfulManagerResult(api: OpenApi): Schema {
  const kinds = ["reveal", "transaction", "origination", "delegation"];
  return {
    oneOf: kinds.map((kind) => {
      const result = api.resolve(api.component(`011-PtHangz2.operation.alpha.operation_result.${kind}`));
      const applied = (result.oneOf as Schema[]).map((b) => api.resolve(b)).find((b) => b.title === "Applied");
      if (applied === undefined) throw new RangeError(`no Applied case for ${kind}`);
      const { status: _, ...props } = applied.properties as Record<string, Schema>;
      return {
        title: kind,
        type: "object",
        properties: { kind: constant(kind), ...props },
        required: ["kind", ...(applied.required as string[]).filter((r) => r !== "status")],
      };
    }),
  };
}

/**
 * `GET {B}/metadata` of a Hangzhou block: the shell part of the file's `block_header_metadata` with
 * `protocol`/`next_protocol` set to Hangzhou, closed, plus Hangzhou's block metadata
 * (apply_results.ml, `block_metadata_encoding`, obj9) built from the file's components: `level_info`
 * is the `helpers/current_level` answer (Level.encoding), `voting_period_info` the
 * `votes/current_period` answer (Voting_period.info_encoding).
 */
export function hangzhouMetadata(api: OpenApi): Schema {
  const shell = api.resolve(api.component("block_header_metadata"));
  const { additionalProperties: _, ...closed } = shell;
  const pkh = api.component("Signature.Public_key_hash");
  return {
    ...closed,
    properties: {
      ...(shell.properties as Record<string, Schema>),
      protocol: constant(HANGZHOU),
      next_protocol: constant(HANGZHOU),
      baker: pkh,
      level_info: api.response("/helpers/current_level"),
      voting_period_info: api.response("/votes/current_period"),
      nonce_hash: { nullable: true, oneOf: [api.component("cycle_nonce")] },
      consumed_gas: api.component("positive_bignum"),
      deactivated: { type: "array", items: pkh },
      balance_updates: api.component("011-PtHangz2.operation_metadata.alpha.balance_updates"),
      liquidity_baking_escape_ema: { type: "integer", minimum: -2147483648, maximum: 2147483647 },
      implicit_operations_results: { type: "array", items: successfulManagerResult(api) },
    },
    required: [
      ...(shell.required as string[]),
      "baker", "level_info", "voting_period_info", "nonce_hash", "consumed_gas", "deactivated", "balance_updates",
      "liquidity_baking_escape_ema", "implicit_operations_results",
    ],
  };
}

/** `GET {B}` of a Hangzhou block: protocol, chain_id, hash, header (no protocol/chain_id/hash), metadata, operations. */
export function hangzhouBlock(api: OpenApi): Schema {
  return {
    type: "object",
    properties: {
      protocol: constant(HANGZHOU),
      chain_id: api.component("Chain_id"),
      hash: api.component("block_hash"),
      header: api.component("011-PtHangz2.block_header.alpha.full_header"),
      metadata: hangzhouMetadata(api),
      operations: { type: "array", items: { type: "array", items: hangzhouOperation(api) } },
    },
    required: ["protocol", "chain_id", "hash", "header", "operations"],
  };
}

/** `GET /chains/<chain>/mempool/pending_operations` as Octez v12.4 answers: the file's schema plus the required `outdated`. */
export function pendingOperations(api: OpenApi): Schema {
  const s = api.resolve(api.response("/pending_operations"));
  const props = s.properties as Record<string, Schema>;
  return { ...s, properties: { ...props, outdated: props.refused! }, required: [...(s.required as string[]), "outdated"] };
}

/**
 * `GET /chains/<chain>/checkpoint` as this node answers by a decision of the project
 * (docs/README.md, "Where the specification and Octez v12 disagree"): Octez v12's fields plus
 * the specification's `save_point`, the same value as `savepoint`. Not an Octez lag: a deliberate
 * extra field, so the check stays strict about everything else.
 */
export function checkpointWithSavePoint(api: OpenApi): Schema {
  const s = api.resolve(api.response("/chains/{chain_id}/checkpoint"));
  const props = s.properties as Record<string, Schema>;
  if (props.savepoint === undefined) throw new RangeError("checkpoint schema without savepoint");
  return { ...s, properties: { ...props, save_point: props.savepoint } };
}

/**
 * The 200 schema of `template` with Octez's floats as numbers: `timespan.system` (a float of
 * seconds, `Time.System.Span.encoding`) and a peer validator's `no_new_head_from_peer.timespan`
 * (`float`) are written `"type": "integer"` in the file, because Octez's OpenAPI printer
 * (`src/lib_openapi/openapi.ml`) prints a JSON schema `Number` as `integer`.
 */
export function withFloatTimespans(api: OpenApi, template: string): Schema {
  const span: Schema = { type: "number", description: "A span of time, as seen by the local computer." };
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (s === null || typeof s !== "object") return s;
    const o = s as Record<string, unknown>;
    if (o["$ref"] === "#/components/schemas/timespan.system") return span;
    const out = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v)]));
    if (o["title"] === "no_new_head_from_peer") (out["properties"] as Record<string, unknown>)["timespan"] = { type: "number" };
    return out;
  };
  return walk(api.response(template)) as Schema;
}
