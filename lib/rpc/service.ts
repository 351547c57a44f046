/**
 * Services declared as data (resto's `Service` plus its handler): method, path of static
 * segments and typed arguments, query, input and output encodings, description, handler.
 * @module
 */
import type { Encoding } from "../encoding/codec.ts";
import type { Arg } from "./arg.ts";
import { emptyQuery, type Query } from "./query.ts";

/** HTTP methods a service may have. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A final path argument that takes every remaining segment (resto's `/:*`). */
export interface Tail<T> {
  readonly tail: Arg<T>;
}

/** A trailing argument that consumes the rest of the path, each segment parsed by `arg`. */
export function tail<T>(arg: Arg<T>): Tail<T> {
  return { tail: arg };
}

/** One path element: a static segment, a typed argument, or (last) a tail argument. */
export type PathItem = string | Arg<any> | Tail<any>;

/** The tuple of parsed argument values of a path. */
export type ParamsOf<P extends readonly PathItem[]> = P extends readonly [infer H, ...infer R extends readonly PathItem[]]
  ? H extends string
    ? ParamsOf<R>
    : H extends Tail<infer T>
      ? [T[], ...ParamsOf<R>]
      : H extends Arg<infer T>
        ? [T, ...ParamsOf<R>]
        : ParamsOf<R>
  : [];

/** What a handler receives. */
export interface ServiceCall<P, Q, I, C> {
  /** Parsed path arguments, in path order (those of this service's own path). */
  readonly params: P;
  /** Parsed query. */
  readonly query: Q;
  /** Decoded request body (`undefined` for services without input). */
  readonly body: I;
  /** Context of the directory the service is registered in (given by a dynamic subtree's mount). */
  readonly ctx: C;
  /** The HTTP request. */
  readonly request: Request;
  /** Aborted when the client goes away (for streams: also when the stream is cancelled). */
  readonly signal: AbortSignal;
}

type Awaitable<T> = T | Promise<T>;

/** Common fields of a service declaration. */
interface ServiceSpecBase<P extends readonly PathItem[], Q, I, O> {
  readonly method: Method;
  readonly path: P;
  readonly description?: string;
  readonly query?: Query<Q>;
  /** Request body encoding (POST/PUT/PATCH); absent: the body is not read. */
  readonly input?: Encoding<I>;
  readonly output: Encoding<O>;
}

/** A one-answer service. With `optional: true`, returning `undefined` answers 404. */
export interface ServiceSpec<P extends readonly PathItem[], Q, I, O, C, Opt extends boolean> extends ServiceSpecBase<P, Q, I, O> {
  readonly optional?: Opt;
  /**
   * Cache the JSON text per returned value (objects by identity, strings, numbers and bigints by
   * value, the last 1024 of them): for immutable answers served often.
   */
  readonly cache?: boolean;
  readonly handler: (call: ServiceCall<ParamsOf<P>, Q, I, C>) => Awaitable<Opt extends true ? O | undefined : O>;
}

/** A streaming service: the handler's async iterable becomes one chunk per value. */
export interface StreamServiceSpec<P extends readonly PathItem[], Q, I, O, C> extends ServiceSpecBase<P, Q, I, O> {
  readonly handler: (call: ServiceCall<ParamsOf<P>, Q, I, C>) => Awaitable<AsyncIterable<O>>;
}

/** A declared service, ready to register in a `Directory<C>`. */
export interface Service<C = any> {
  readonly method: Method;
  readonly path: readonly PathItem[];
  readonly description: string | undefined;
  readonly query: Query<any>;
  readonly input: Encoding<any> | undefined;
  readonly output: Encoding<any>;
  readonly optional: boolean;
  readonly stream: boolean;
  /** The handler makes the whole `Response` itself (`rawService`); `output` only describes it. */
  readonly raw: boolean;
  readonly cache: boolean;
  readonly handler: (call: ServiceCall<any, any, any, C>) => unknown;
}

const METHODS: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

function checkPath(path: readonly PathItem[]): void {
  if (!Array.isArray(path)) throw new TypeError("service: path must be an array");
  path.forEach((p, i) => {
    if (typeof p === "string") {
      if (p === "" || p.includes("/")) throw new TypeError(`service: bad static segment ${JSON.stringify(p)}`);
    } else if (p !== null && typeof p === "object" && "tail" in p) {
      if (i !== path.length - 1) throw new TypeError("service: a tail argument must be the last path element");
    } else if (p === null || typeof p !== "object" || typeof (p as Arg<unknown>).parse !== "function") {
      throw new TypeError(`service: path element ${i} is neither a string nor an argument`);
    }
  });
}

function base(spec: ServiceSpecBase<readonly PathItem[], unknown, unknown, unknown>) {
  if (!METHODS.has(spec.method)) throw new TypeError(`service: unsupported method ${String(spec.method)}`);
  checkPath(spec.path);
  if (spec.output === undefined) throw new TypeError("service: output encoding is required");
  return {
    method: spec.method,
    path: spec.path,
    description: spec.description,
    query: spec.query ?? emptyQuery,
    input: spec.input,
    output: spec.output,
  };
}

/**
 * Declares a service.
 * @example
 * ```ts
 * const blockHash = service({ method: "GET", path: ["chains", chainArg, "blocks", blockArg, "hash"],
 *   description: "The block's hash, its unique identifier.", output: blockHashEncoding,
 *   handler: ({ params: [chain, block] }) => shell.blockHash(chain, block) });
 * ```
 */
export function service<const P extends readonly PathItem[], Q = {}, I = undefined, O = unknown, C = unknown, Opt extends boolean = false>(
  spec: ServiceSpec<P, Q, I, O, C, Opt>,
): Service<C> {
  return Object.freeze({
    ...base(spec as ServiceSpecBase<readonly PathItem[], unknown, unknown, unknown>),
    optional: spec.optional === true,
    stream: false,
    raw: false,
    cache: spec.cache === true,
    handler: spec.handler as Service<C>["handler"],
  });
}

/** Declares a streaming service (`/monitor/*`): one JSON value and a newline per chunk. */
export function streamService<const P extends readonly PathItem[], Q = {}, I = undefined, O = unknown, C = unknown>(
  spec: StreamServiceSpec<P, Q, I, O, C>,
): Service<C> {
  return Object.freeze({
    ...base(spec as ServiceSpecBase<readonly PathItem[], unknown, unknown, unknown>),
    optional: false,
    stream: true,
    raw: false,
    cache: false,
    handler: spec.handler as Service<C>["handler"],
  });
}

/** A service whose handler answers the whole `Response` (status, headers, body); `output` is for `/describe`. */
export interface RawServiceSpec<P extends readonly PathItem[], Q, C> extends ServiceSpecBase<P, Q, undefined, unknown> {
  readonly handler: (call: ServiceCall<ParamsOf<P>, Q, undefined, C>) => Awaitable<Response>;
}

/**
 * A service that makes its `Response` itself, for what is answered as another request is (the
 * early layout's paths). It declares no input: the handler reads the request's body if it wants.
 */
export function rawService<const P extends readonly PathItem[], Q = {}, C = unknown>(spec: RawServiceSpec<P, Q, C>): Service<C> {
  return Object.freeze({
    ...base(spec as ServiceSpecBase<readonly PathItem[], unknown, unknown, unknown>),
    optional: false,
    stream: false,
    raw: true,
    cache: false,
    handler: spec.handler as Service<C>["handler"],
  });
}

/** Thrown by a handler (or a dynamic subtree's builder) to answer 404 with an empty body. */
export class NotFound extends Error {
  override name = "NotFound";
  constructor(message = "Not found") {
    super(message);
  }
}
