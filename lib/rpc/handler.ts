/**
 * `createRpcHandler(directory, options)`: the RPC server as one `(request) => Promise<Response>`,
 * with the status codes, bodies and headers of Octez v12's server (resto 0.6 + lib_rpc_http):
 * 404 empty for no service, 405 with `Allow`, 501 for HEAD and unknown methods, 400 text/plain
 * for a bad path argument, query or body, 415, 406, 500 with the JSON error list, CORS, and
 * streamed answers. It never throws: anything unexpected becomes a 500 `failure`.
 *
 * A 500 carries Tezos errors only: an exception that is not a `TezosError` (a bug of the node,
 * as services answer what they refuse with registered errors) answers the generic
 * `failure` "Internal error", and nothing of its JavaScript text reaches the client; the
 * exception goes to {@link RpcHandlerOptions.onInternalError} (by default one line on stderr,
 * once per distinct exception).
 * @module
 */
import { type Acl, aclAllows } from "./acl.ts";
import { defaultRegistry, type ErrorRegistry, type TraceItem } from "../errors/registry.ts";
import { exceptionMessage, failureItem } from "../errors/core.ts";
import { TezosError } from "../errors/registry.ts";
import { registerBuiltins } from "./builtins.ts";
import { allowedHeaders, type CorsOptions, matchOrigin } from "./cors.ts";
import { type Directory, methodsAt, type Resolution, resolvePath } from "./directory.ts";
import {
  ACCEPTABLE,
  BINARY_MEDIA,
  BodyError,
  DEFAULT_MAX_BODY_SIZE,
  BodyTooLarge,
  decodeBody,
  encodeBody,
  errorBody,
  JSON_MEDIA,
  type MediaType,
  negotiateInput,
  negotiateOutput,
} from "./media.ts";
import { QueryError } from "./query.ts";
import { type Method, NotFound, type Service } from "./service.ts";
import { streamOf } from "./stream.ts";
import { parseTarget, type RequestTarget } from "./url.ts";

/** Options of `createRpcHandler`. */
/** How the server a request came through serves it: the access policy of its listening address. */
export interface RequestContext {
  /** Refused requests answer 401 (`lib/rpc/acl.ts`); none: everything is allowed. */
  readonly acl?: Acl;
}

/** The RPC handler: one request, and how the server it came through serves it. */
export type RpcHandler = (request: Request, context?: RequestContext) => Promise<Response>;

export interface RpcHandlerOptions {
  /** CORS: allowed origins and extra allowed headers. No origin allowed when absent. */
  readonly cors?: CorsOptions;
  /** Registry listed by `GET /errors`; the node's registry when absent. */
  readonly errors?: ErrorRegistry;
  /** The largest request body read, in bytes ({@link DEFAULT_MAX_BODY_SIZE} by default); larger ones answer 413. */
  readonly maxBodySize?: number;
  /** Register `/describe` and `/errors` into the directory (default true). */
  readonly builtins?: boolean;
  /**
   * Told of each exception that is not a Tezos error met while answering (the client gets the
   * `failure` "Internal error" and nothing of it), with the request when there is one. By default
   * {@link logInternalErrorOnce}.
   */
  readonly onInternalError?: (error: unknown, request: Request | undefined) => void;
}

/** The message of the `failure` that answers an exception that is not a Tezos error. */
export const INTERNAL_ERROR = "Internal error";

const loggedInternalErrors = new Set<string>();
const MAX_LOGGED_INTERNAL_ERRORS = 256;

/**
 * The default {@link RpcHandlerOptions.onInternalError}: one line on stderr (the request's method
 * and path, the exception's name and message, where it was thrown), once per distinct exception
 * and place, and at most {@link MAX_LOGGED_INTERNAL_ERRORS} of them, so that no request can fill
 * the log or print a stack trace.
 */
export function logInternalErrorOnce(error: unknown, request: Request | undefined): void {
  const message = exceptionMessage(error).replace(/\s+/g, " ").slice(0, 300);
  const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
  const at = /\n\s+at (.+)/.exec(stack)?.[1]?.trim() ?? "unknown place";
  const key = `${message} @ ${at}`;
  if (loggedInternalErrors.has(key) || loggedInternalErrors.size >= MAX_LOGGED_INTERNAL_ERRORS) return;
  loggedInternalErrors.add(key);
  let where = "";
  if (request !== undefined) {
    try {
      where = ` (${request.method} ${new URL(request.url).pathname.slice(0, 200)})`;
    } catch {
      // a URL the runtime gave cannot fail to parse; nothing to add if it does
    }
  }
  console.error(`RPC internal error${where}: ${message} at ${at.slice(0, 200)}`);
}

const METHODS: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
const TEXT_PLAIN = { "content-type": "text/plain" };
const EMPTY_QUERY = Object.freeze({});
const UTF8 = new TextEncoder();
const NOT_ACCEPTABLE_BODY = UTF8.encode(ACCEPTABLE);
/**
 * The headers of an answer without CORS, one object per media type: a `Response` copies its
 * headers init, so one object serves every answer (frozen: nothing may change it). Under Bun a
 * `Headers` object, which its `Response` copies faster than a record (0.27 against 0.41 µs);
 * elsewhere a record: @hono/node-server would hand a `Headers` init out as the answer's own
 * `headers`, and writes a record faster.
 */
const PLAIN_HEADERS: Readonly<Record<MediaType, HeadersInit>> =
  (globalThis as { Bun?: unknown }).Bun === undefined
    ? { "application/json": Object.freeze({ "content-type": JSON_MEDIA }), "application/octet-stream": Object.freeze({ "content-type": BINARY_MEDIA }) }
    : { "application/json": new Headers({ "content-type": JSON_MEDIA }), "application/octet-stream": new Headers({ "content-type": BINARY_MEDIA }) };
/**
 * Whether cached answers go out as UTF-8 bytes rather than as text. Bun and Node (through
 * @hono/node-server) write a byte body as it is, where a text body is encoded again for every
 * request (8 KB of JSON: about 1 µs); Deno's `Response` copies a byte body and writes text faster
 * (8 KB: 11 µs per request as text, 14 as bytes). The runtimes copy a `Response`'s byte body:
 * the cached bytes are never handed out.
 */
const BYTE_BODIES = (globalThis as { Deno?: unknown }).Deno === undefined;
/** The JSON answers of `cache: true` services, per service and answer object, in the form bodies take. */
const jsonCaches = new WeakMap<Service, WeakMap<object, string | Uint8Array>>();
/** The same for answers that are not objects (a balance, a counter), per value: the last 1024 per service. */
const jsonValueCaches = new WeakMap<Service, Map<unknown, string | Uint8Array>>();

/** The JSON body of a `cache: true` service's answer, made once per answer object or value. */
function cachedJson(svc: Service, result: unknown): string | Uint8Array {
  if (typeof result === "object" && result !== null) {
    let cache = jsonCaches.get(svc);
    if (cache === undefined) jsonCaches.set(svc, (cache = new WeakMap()));
    let body = cache.get(result);
    if (body === undefined) cache.set(result, (body = jsonBody(svc, result)));
    return body;
  }
  let cache = jsonValueCaches.get(svc);
  if (cache === undefined) jsonValueCaches.set(svc, (cache = new Map()));
  let body = cache.get(result);
  if (body === undefined) {
    body = jsonBody(svc, result);
    if (cache.size >= 1024) cache.clear();
    cache.set(result, body);
  }
  return body;
}

function jsonBody(svc: Service, result: unknown): string | Uint8Array {
  const text = encodeBody(JSON_MEDIA, svc.output, result) as string;
  return BYTE_BODIES ? UTF8.encode(text) : text;
}

/** A request target as the router reads it: segments and query. */
type Target = RequestTarget;

/**
 * Parsed request targets by URL, for the URLs clients ask again and again; bounded: emptied when
 * full. The segment arrays are shared: only read them.
 */
class TargetCache {
  private readonly targets = new Map<string, Target>();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  get(url: string): Target {
    let t = this.targets.get(url);
    if (t === undefined) {
      if (this.targets.size >= this.limit) this.targets.clear();
      t = parseTarget(url);
      this.targets.set(url, t);
    }
    return t;
  }
}

/**
 * What a one-answer service's handler receives. `signal` is read from the request only when a
 * service asks for it: on Node's lazy requests (@hono/node-server) reading it builds an
 * AbortController, a large share of a small request's cost.
 */
class Call {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly ctx: unknown;
  readonly request: Request;

  constructor(params: unknown, query: unknown, body: unknown, ctx: unknown, request: Request) {
    this.params = params;
    this.query = query;
    this.body = body;
    this.ctx = ctx;
    this.request = request;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

function empty(status: number, headers?: HeadersInit): Response {
  return new Response(null, headers === undefined ? { status } : { status, headers });
}

function badRequest(text: string): Response {
  return new Response(text, { status: 400, headers: TEXT_PLAIN });
}

function lookupFailure(r: Exclude<Resolution, { kind: "found" }>): Response {
  if (r.kind === "not_found") return empty(404);
  return badRequest(
    `Failed to parsed an argument in path. After "${r.context}", the value "${r.message}" is not acceptable for type "${r.arg.name}"`,
  );
}

/** The 500 body of an exception: a Tezos error's own trace, else (a bug) the generic "Internal error". */
function traceToAnswer(e: unknown, internal: (error: unknown) => void): readonly TraceItem[] {
  if (e instanceof TezosError) {
    try {
      for (const item of e.trace) item.toJson();
      return e.trace;
    } catch (err) {
      internal(err);
      return [failureItem(INTERNAL_ERROR)];
    }
  }
  internal(e);
  return [failureItem(INTERNAL_ERROR)];
}

/**
 * The RPC handler over `root`. Registers `/describe` and `/errors` in `root` (unless told not
 * to); later registrations in `root` are served too.
 *
 * @example
 * ```ts
 * const root = new Directory();
 * root.register(service({ method: "GET", path: ["version"], output: versionEncoding, handler: () => version }));
 * const fetch = createRpcHandler(root, { cors: { origins: ["*"] } });
 * const res = await fetch(new Request("http://node/version"));
 * ```
 */
export function createRpcHandler(root: Directory<any>, options: RpcHandlerOptions = {}): RpcHandler {
  if (options.builtins !== false) registerBuiltins(root, options.errors ?? defaultRegistry);
  const onInternalError = options.onInternalError ?? logInternalErrorOnce;

  /** A 500 with the error trace of `e` (see {@link traceToAnswer}). */
  function failed(media: MediaType, headers: HeadersInit, e: unknown, request: Request | undefined): Response {
    const trace = traceToAnswer(e, (err) => {
      try {
        onInternalError(err, request);
      } catch {
        // a logger that fails changes nothing to the answer
      }
    });
    return new Response(errorBody(media, trace) as BodyInit, { status: 500, headers });
  }
  const maxBodySize = options.maxBodySize ?? DEFAULT_MAX_BODY_SIZE;
  const origins = options.cors?.origins ?? [];
  const corsHeaders = allowedHeaders(options.cors?.headers ?? []);

  async function preflight(request: Request, segments: string[]): Promise<Response> {
    const origin = request.headers.get("origin");
    const asked = origin === null ? null : request.headers.get("access-control-request-method");
    let r = resolvePath(root.root, undefined, segments, request);
    if (r instanceof Promise) r = await r;
    if (r.kind !== "found") return lookupFailure(r);
    let methods: Method[];
    if (asked !== null) {
      if (!METHODS.has(asked)) return empty(404);
      if (r.node.services?.has(asked as Method) !== true) {
        const allowed = methodsAt(r.node);
        return allowed.length === 0 ? empty(404) : empty(405, { allow: allowed.join(", ") });
      }
      methods = [asked as Method];
    } else {
      methods = methodsAt(r.node);
      if (methods.length === 0) return empty(404);
    }
    const headers: Record<string, string> = {
      "access-control-allow-methods": methods.join(", "),
      "access-control-allow-headers": corsHeaders,
    };
    if (origin !== null) {
      const allowed = matchOrigin(origins, origin);
      if (allowed !== undefined) headers["access-control-allow-origin"] = allowed;
    }
    return empty(200, headers);
  }

  const targets = new TargetCache(1024);

  /**
   * Serves one request. Synchronous up to the first step that answers a promise (a dynamic
   * subtree's builder, a request body, an asynchronous service), so that a cached read goes
   * through no promise but the one `handle` returns.
   */
  function dispatch(request: Request, acl: Acl | undefined): Response | Promise<Response> {
    const target = targets.get(request.url);
    const method = request.method;
    const segments = target.segments;
    if (method === "OPTIONS") return preflight(request, segments);
    if (!METHODS.has(method)) return empty(501);
    // resto answers what the listening address's policy refuses with 401 and nothing else
    if (acl !== undefined && !aclAllows(acl, method, segments)) return empty(401);

    const r = resolvePath(root.root, undefined, segments, request);
    if (r instanceof Promise) return r.then((found) => serve(request, method as Method, target, found));
    return serve(request, method as Method, target, r);
  }

  /** Serves a request whose path is resolved: negotiation, query, body, the service's answer. */
  function serve(request: Request, method: Method, target: Target, r: Resolution): Response | Promise<Response> {
    if (r.kind !== "found") return lookupFailure(r);
    const svc = r.node.services?.get(method);
    if (svc === undefined) {
      const allowed = methodsAt(r.node);
      return allowed.length === 0 ? empty(404) : empty(405, { allow: allowed.join(", ") });
    }

    const headersIn = request.headers;
    const contentType = headersIn.get("content-type");
    let inMedia: MediaType = JSON_MEDIA;
    if (contentType !== null) {
      const m = negotiateInput(contentType);
      if (m === undefined) return empty(415);
      inMedia = m;
    }
    const accept = headersIn.get("accept");
    let outMedia: MediaType = JSON_MEDIA;
    if (accept !== null) {
      const m = negotiateOutput(accept);
      if (m === undefined) return new Response(NOT_ACCEPTABLE_BODY.slice(), { status: 406 });
      outMedia = m;
    }

    let query: unknown = EMPTY_QUERY;
    if (svc.query.fields.length > 0) {
      try {
        query = svc.query.parse(target.search);
      } catch (e) {
        if (e instanceof QueryError) return badRequest(`Failed to parse the query string: ${e.message}`);
        throw e;
      }
    }

    let headers = PLAIN_HEADERS[outMedia];
    if (origins.length > 0) {
      const origin = headersIn.get("origin");
      if (origin !== null) {
        const allowed = matchOrigin(origins, origin);
        if (allowed !== undefined) headers = { "content-type": outMedia, "access-control-allow-origin": allowed };
      }
    }

    if (svc.input === undefined) return call(svc, r, query, undefined, request, outMedia, headers);
    const input = svc.input;
    return decodeBody(inMedia, input, request, maxBodySize).then(
      (body) => call(svc, r, query, body, request, outMedia, headers),
      (e) => {
        if (e instanceof BodyError) return badRequest(`Failed to parse the request body: ${e.message}`);
        if (e instanceof BodyTooLarge) return new Response(e.message, { status: 413, headers: TEXT_PLAIN });
        throw e;
      },
    );
  }

  /** Calls the service and makes its answer (at once when the service answers at once). */
  function call(
    svc: Service,
    r: Extract<Resolution, { kind: "found" }>,
    query: unknown,
    body: unknown,
    request: Request,
    outMedia: MediaType,
    headers: HeadersInit,
  ): Response | Promise<Response> {
    const producer = svc.stream ? new AbortController() : undefined;
    let result: unknown;
    try {
      result =
        producer === undefined
          ? svc.handler(new Call(r.params, query, body, r.ctx, request))
          : svc.handler({ params: r.params, query, body, ctx: r.ctx, request, signal: producer.signal });
    } catch (e) {
      return failure(e, producer, request, outMedia, headers);
    }
    // Most handlers answer at once: waiting on a plain value would still cost a microtask.
    if (result instanceof Promise) {
      return result.then(
        (value) => answer(svc, value, producer, request, outMedia, headers),
        (e) => failure(e, producer, request, outMedia, headers),
      );
    }
    return answer(svc, result, producer, request, outMedia, headers);
  }

  /** The answer to a service that threw (or rejected): 404 for `NotFound`, else 500 with the trace. */
  function failure(e: unknown, producer: AbortController | undefined, request: Request, outMedia: MediaType, headers: HeadersInit): Response {
    producer?.abort();
    if (e instanceof NotFound) return empty(404, headers);
    return failed(outMedia, headers, e, request);
  }

  /** The answer to a service's result: a stream, 404 for an optional service's `undefined`, or the encoded value. */
  function answer(
    svc: Service,
    result: unknown,
    producer: AbortController | undefined,
    request: Request,
    outMedia: MediaType,
    headers: HeadersInit,
  ): Response {
    if (producer !== undefined) {
      if (result === null || typeof result !== "object" || !(Symbol.asyncIterator in result)) {
        producer.abort();
        return failed(outMedia, headers, new TypeError("streaming service did not return an async iterable"), request);
      }
      const output = svc.output;
      const stream = streamOf(result as AsyncIterable<unknown>, (v) => encodeBody(outMedia, output, v), producer, request.signal);
      return new Response(stream, { status: 200, headers });
    }

    if (svc.raw) return result as Response;
    if (result === undefined && svc.optional) return empty(404, headers);
    let payload: string | Uint8Array;
    try {
      if (svc.cache && outMedia === JSON_MEDIA && result !== null && result !== undefined && typeof result !== "function") {
        payload = cachedJson(svc, result);
      } else payload = encodeBody(outMedia, svc.output, result);
    } catch (e) {
      return failed(outMedia, headers, e, request);
    }
    return new Response(payload as BodyInit, { status: 200, headers });
  }

  const internalFailure = (e: unknown, request: Request) => failed(JSON_MEDIA, { "content-type": JSON_MEDIA }, e, request);
  return function handle(request: Request, context?: RequestContext): Promise<Response> {
    try {
      const res = dispatch(request, context?.acl);
      return res instanceof Promise ? res.catch((e: unknown) => internalFailure(e, request)) : Promise.resolve(res);
    } catch (e) {
      // As a rejection, as when `dispatch` was asynchronous: the answer is made in a later microtask.
      return Promise.reject(e).catch((err: unknown) => internalFailure(err, request));
    }
  };
}
