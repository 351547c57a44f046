/**
 * `GET /config` (Octez v12 `node_services.ml`): the node's runtime configuration, the command line
 * over the configuration file, in the shape of Octez's configuration file
 * (`Node_config_file.encoding`): `data-dir`, `rpc`, `p2p`, `shell`, `network`, each field left
 * out where it has Octez's default value, as data-encoding writes `dft` fields.
 *
 * The platform builds the value (`platform/config.ts`) and gives it as `NodeOptions.config`; a
 * node created without one answers {@link defaultNodeConfig}. The answer is JSON only: asked for
 * in binary (`Accept: application/octet-stream`), it is a 500 `failure` saying so.
 *
 * @example
 * ```ts
 * const dir = configServices({ "data-dir": "/tmp/node", network: "sandbox" });
 * // GET /config → {"data-dir":"/tmp/node","network":"sandbox"}
 * ```
 * @module
 */
import type { Json, JsonSchema } from "../../encoding/codec.ts";
import { type Codec, makeCodec } from "../../encoding/core.ts";
import { failure } from "../../errors/core.ts";
import { Directory } from "../directory.ts";
import { service } from "../service.ts";
import { DEFAULT_SYNC_LATENCY, DEFAULT_SYNC_THRESHOLD, SANDBOX_SYNC_THRESHOLD } from "../../shell/sync-heuristic.ts";

/** The configuration as Octez's configuration file writes it (a JSON object). */
export type NodeConfig = { readonly [field: string]: Json };

/**
 * What this sandbox node runs with when no configuration is given (a node created in process):
 * the `sandbox` network; `p2p` empty, that is no address to listen on and no bootstrap peer (in
 * Octez's shape, the absent field would mean its default, listening on `[::]:9732`); the
 * synchronisation limits the node runs with (`sync`; by default a threshold of 0, since the node
 * is bootstrapped from the start). No `data-dir` and no `rpc.listen-addrs`: such a node has neither.
 */
export function defaultNodeConfig(sync: { threshold: number; latency: number } = { threshold: SANDBOX_SYNC_THRESHOLD, latency: DEFAULT_SYNC_LATENCY }): NodeConfig {
  const chainValidator = chainValidatorSection(sync.threshold, sync.latency);
  return { p2p: {}, ...(chainValidator === undefined ? {} : { shell: { chain_validator: chainValidator } }), network: "sandbox" };
}

/**
 * `shell.chain_validator` as Octez's configuration writes it: each field only where it differs
 * from octez-node's default (threshold 4, latency 150 s), nothing when neither does.
 */
export function chainValidatorSection(threshold: number, latency: number): Json | undefined {
  const out: { [field: string]: Json } = {};
  if (latency !== DEFAULT_SYNC_LATENCY) out["latency"] = latency;
  if (threshold !== DEFAULT_SYNC_THRESHOLD) out["synchronisation_threshold"] = threshold;
  return Object.keys(out).length === 0 ? undefined : out;
}

const stringList: JsonSchema = { type: "array", items: { type: "string" } };
const count = (max: number): JsonSchema => ({ type: "integer", minimum: 0, maximum: max });

/** The fields this node writes, as Octez's schema has them. */
const CONFIG_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    "data-dir": { type: "string" },
    rpc: {
      type: "object",
      properties: {
        "listen-addrs": stringList,
        "cors-origin": stringList,
        "cors-headers": stringList,
        acl: {
          type: "array",
          items: {
            type: "object",
            properties: { address: { type: "string" }, whitelist: stringList, blacklist: stringList },
            required: ["address"],
          },
        },
      },
      additionalProperties: false,
    },
    p2p: {
      type: "object",
      properties: {
        "expected-proof-of-work": { type: "number" },
        "bootstrap-peers": stringList,
        "listen-addr": { type: "string" },
        "private-mode": { type: "boolean" },
        limits: {
          type: "object",
          properties: {
            "connection-timeout": { type: "number" },
            "authentication-timeout": { type: "number" },
            "min-connections": count(65535),
            "expected-connections": count(65535),
            "max-connections": count(65535),
            "max-incoming-connections": count(255),
            max_known_points: { type: "array", items: count(65535) },
            max_known_peer_ids: { type: "array", items: count(65535) },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    shell: {
      type: "object",
      properties: {
        chain_validator: { type: "object", properties: { latency: count(65535), synchronisation_threshold: count(255) }, additionalProperties: false },
        history_mode: { type: "string", enum: ["archive", "full", "rolling"] },
      },
      additionalProperties: false,
    },
    network: { type: "string", enum: ["sandbox"] },
  },
  additionalProperties: false,
};

/** The answer's codec: the value as is in JSON, no binary form. */
const configCodec: Codec<NodeConfig> = makeCodec<NodeConfig>({
  size: { kind: "fixed", size: 0 },
  desc: { t: "leaf", layout: { kind: "String" } },
  toJson: (v) => v,
  fromJson: (j) => j as NodeConfig,
  write() {
    throw failure.error({ msg: "The node's configuration has no binary form: ask for application/json" });
  },
  read() {
    throw new TypeError("The node's configuration has no binary form");
  },
  schema: () => CONFIG_SCHEMA,
});

/** Registers `GET /config`, answering `config`. */
export function configServices(config: NodeConfig): Directory<void> {
  return new Directory().register(
    service({
      method: "GET",
      path: ["config"],
      description: "Return the runtime node configuration (this takes into account the command-line arguments and the on-disk configuration file)",
      output: configCodec,
      handler: () => config,
    }),
  );
}
