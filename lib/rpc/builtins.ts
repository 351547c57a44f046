/**
 * The two services every Octez node has: `GET /describe/<path>` (resto's description service)
 * and `GET /errors` (the schema of every registered error).
 * @module
 */
import type { Json } from "../encoding/codec.ts";
import { defaultRegistry, type ErrorRegistry } from "../errors/registry.ts";
import { boolArg, stringArg } from "./arg.ts";
import { describeAt, SERVICE_TREE_SCHEMA } from "./describe.ts";
import type { Directory } from "./directory.ts";
import { anyJson } from "./json_any.ts";
import { query, single } from "./query.ts";
import { type Service, service, tail } from "./service.ts";

/** `GET /describe/<path>?recurse=<bool>` describing `root`. */
export function describeService(root: Directory<any>): Service {
  return service({
    method: "GET",
    path: ["describe", tail(stringArg)],
    description: "RPCs documentation and input/output schema",
    query: query({ recurse: single(boolArg, false) }),
    output: anyJson(SERVICE_TREE_SCHEMA),
    optional: true,
    handler: ({ params: [path], query: q, request }): Promise<Json | undefined> => describeAt(root, path, q.recurse, request),
  });
}

/** `GET /errors`: the JSON schema of the errors of `registry`. */
export function errorsService(registry: ErrorRegistry = defaultRegistry): Service {
  let version = -1;
  let cached: Json = null;
  return service({
    method: "GET",
    path: ["errors"],
    description: "Schema for all the RPC errors from the shell",
    output: anyJson(),
    cache: true,
    handler: () => {
      // One object per registry state, so the JSON text cache (by identity) stays valid.
      const n = registry.list().length;
      if (n !== version) {
        version = n;
        cached = registry.schema();
      }
      return cached;
    },
  });
}

/** Registers `/describe` and `/errors` in `root` unless it already has them. */
export function registerBuiltins(root: Directory<any>, registry: ErrorRegistry = defaultRegistry): void {
  if (root.root.suffixes?.get("describe") === undefined) root.register(describeService(root));
  if (root.root.suffixes?.get("errors") === undefined) root.register(errorsService(registry));
}
