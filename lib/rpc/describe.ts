/**
 * `GET /describe[/<path>][?recurse=yes]`: the service tree in Octez's shape (resto's
 * `Description`), generated from the same directory that routes requests. Dynamic subtrees are
 * built when the described path gives their arguments, and shown as `{"dynamic": descr}` below.
 * Each service carries its error schema under both `error` (Octez v12) and `erro` (the
 * specification's spelling).
 * @module
 */
import type { Json, JsonSchema } from "../encoding/codec.ts";
import type { Encoding } from "../encoding/codec.ts";
import type { Arg } from "./arg.ts";
import { type Directory, type DirNode, METHOD_ORDER, resolvePath } from "./directory.ts";
import { JSON_TEXT_BINARY_SCHEMA } from "./json_any.ts";
import type { Method, Service } from "./service.ts";

const DRAFT_04 = "http://json-schema.org/draft-04/schema#";

/** `{json_schema, binary_schema}` of an encoding, `$schema` first as data-encoding prints it. */
export function schemaPair(enc: Encoding<unknown>): { json_schema: JsonSchema; binary_schema: Json } {
  const js = enc.jsonSchema();
  const json_schema: JsonSchema = { $schema: DRAFT_04 };
  for (const k in js) if (k !== "$schema") json_schema[k] = js[k]!;
  return { json_schema, binary_schema: enc.binarySchema() as unknown as Json };
}

/** The error schema every Octez service shows (RPC_service's `error` encoding). */
export const ERROR_SCHEMA_PAIR: Json = {
  json_schema: { $schema: DRAFT_04, description: "The full list of errors is available with the global RPC `GET errors`" },
  binary_schema: JSON_TEXT_BINARY_SCHEMA as unknown as Json,
};

/** `{"id":"single","name":…,"descr"?:…}` (or `"multiple"` for a tail argument). */
export function argDescription(arg: Arg<unknown>, id: "single" | "multiple" = "single"): Json {
  const out: { [k: string]: Json } = { id, name: arg.name };
  if (arg.descr !== undefined) out["descr"] = arg.descr;
  return out;
}

const KEYS: Record<Method, string> = {
  GET: "get_service",
  POST: "post_service",
  DELETE: "delete_service",
  PUT: "put_service",
  PATCH: "patch_service",
};

const serviceCache = new WeakMap<Service, Json>();

/** The description object of one service (cached: services are immutable). */
export function describeService(s: Service): Json {
  let d = serviceCache.get(s);
  if (d !== undefined) return d;
  const out: { [k: string]: Json } = {
    meth: s.method,
    path: s.path.map((p) =>
      typeof p === "string" ? p : "tail" in p ? argDescription(p.tail as Arg<unknown>, "multiple") : argDescription(p),
    ),
  };
  if (s.description !== undefined) out["description"] = s.description;
  out["query"] = s.query.fields.map(([name, f]) => {
    const item: { [k: string]: Json } = { name };
    if (f.description !== undefined) item["description"] = f.description;
    item["kind"] = f.kind === "flag" ? { flag: {} } : { [f.kind]: argDescription(f.arg!) };
    return item;
  });
  if (s.input !== undefined) out["input"] = schemaPair(s.input);
  out["output"] = schemaPair(s.output);
  out["error"] = ERROR_SCHEMA_PAIR;
  out["erro"] = ERROR_SCHEMA_PAIR;
  d = out;
  serviceCache.set(s, d);
  return d;
}

function staticBody(node: DirNode, recurse: boolean): { [k: string]: Json } {
  const body: { [k: string]: Json } = {};
  const services = node.services;
  if (services !== undefined) {
    for (const m of METHOD_ORDER) {
      const s = services.get(m);
      if (s !== undefined) body[KEYS[m]] = describeService(s);
    }
  }
  if (recurse) {
    if (node.suffixes !== undefined) {
      const names = [...node.suffixes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      body["subdirs"] = { suffixes: names.map((name) => ({ name, tree: describeNode(node.suffixes!.get(name)!) })) };
    } else if (node.arg !== undefined) {
      body["subdirs"] = { dynamic_dispatch: { arg: argDescription(node.arg.arg), tree: describeNode(node.arg.node) } };
    }
  }
  return body;
}

/** Description of a node met below the described one (always recursive; dynamic subtrees unresolved). */
export function describeNode(node: DirNode): Json {
  if (node.dynamic !== undefined) return { dynamic: node.dynamic.descr ?? null };
  if (node.tail !== undefined) return describeNode(node.tail.node);
  if (node.isEmpty()) return "empty";
  return { static: staticBody(node, true) };
}

/**
 * The description of the node at `segments` (resto's describe service): undefined (404) if the
 * path leads nowhere or has a bad argument, or, without `recurse`, if the node has no service.
 */
export async function describeAt(
  root: Directory<any>,
  segments: readonly string[],
  recurse: boolean,
  request: Request,
): Promise<Json | undefined> {
  const r = await resolvePath(root.root, undefined, segments, request);
  if (r.kind !== "found" || r.node.isEmpty()) return undefined;
  const body = staticBody(r.node, recurse);
  if (!recurse && r.node.services === undefined) return undefined;
  return { static: body };
}

const ARG_SCHEMA: JsonSchema = {
  type: "object",
  properties: { id: { type: "string", enum: ["single"] }, name: { type: "string" }, descr: { type: "string" } },
  required: ["id", "name"],
  additionalProperties: false,
};

/** JSON schema of `/describe`'s answer (resto's `service_tree`), for `/describe` itself. */
export const SERVICE_TREE_SCHEMA: JsonSchema = {
  $ref: "#/definitions/service_tree",
  definitions: {
    service_tree: {
      oneOf: [
        {
          title: "Static",
          type: "object",
          properties: {
            static: {
              type: "object",
              properties: {
                get_service: { $ref: "#/definitions/service" },
                post_service: { $ref: "#/definitions/service" },
                delete_service: { $ref: "#/definitions/service" },
                put_service: { $ref: "#/definitions/service" },
                patch_service: { $ref: "#/definitions/service" },
                subdirs: {
                  oneOf: [
                    {
                      title: "Suffixes",
                      type: "object",
                      properties: {
                        suffixes: {
                          type: "array",
                          items: {
                            type: "object",
                            properties: { name: { type: "string" }, tree: { $ref: "#/definitions/service_tree" } },
                            required: ["name", "tree"],
                            additionalProperties: false,
                          },
                        },
                      },
                      required: ["suffixes"],
                      additionalProperties: false,
                    },
                    {
                      title: "Arg",
                      type: "object",
                      properties: {
                        dynamic_dispatch: {
                          type: "object",
                          properties: { arg: ARG_SCHEMA, tree: { $ref: "#/definitions/service_tree" } },
                          required: ["arg", "tree"],
                          additionalProperties: false,
                        },
                      },
                      required: ["dynamic_dispatch"],
                      additionalProperties: false,
                    },
                  ],
                },
              },
              additionalProperties: false,
            },
          },
          required: ["static"],
          additionalProperties: false,
        },
        {
          title: "Dynamic",
          type: "object",
          properties: { dynamic: { oneOf: [{ type: "string" }, { type: "null" }] } },
          required: ["dynamic"],
          additionalProperties: false,
        },
        { title: "Empty", type: "string", enum: ["empty"] },
      ],
    },
    service: {
      type: "object",
      properties: {
        meth: { type: "string", enum: ["PATCH", "GET", "POST", "PUT", "DELETE"] },
        path: { type: "array", items: { oneOf: [{ type: "string" }, ARG_SCHEMA] } },
        description: { type: "string" },
        query: { type: "array", items: { type: "object" } },
        input: { $ref: "#/definitions/schema_pair" },
        output: { $ref: "#/definitions/schema_pair" },
        error: { $ref: "#/definitions/schema_pair" },
        erro: { $ref: "#/definitions/schema_pair" },
      },
      required: ["meth", "path", "query", "output", "error"],
      additionalProperties: false,
    },
    schema_pair: {
      type: "object",
      properties: { json_schema: {}, binary_schema: {} },
      required: ["json_schema", "binary_schema"],
      additionalProperties: false,
    },
  },
};
