/**
 * The service tree (resto's `Directory`): static segments, argument dispatch, tail arguments and
 * dynamic subtrees whose content is computed from the arguments parsed so far (Octez's
 * `register_dynamic_directory`, used for `/chains/<chain>/blocks/<block>/…`, whose services come
 * from the block's protocol).
 * @module
 */
import type { Arg } from "./arg.ts";
import { type Method, NotFound, type ParamsOf, type PathItem, type Service } from "./service.ts";

type Awaitable<T> = T | Promise<T>;

/** A directory together with the context its handlers receive as `ctx`. */
export interface Mounted<D> {
  readonly directory: Directory<D>;
  readonly ctx: D;
}

/** Pairs a directory with its handlers' context, for a dynamic subtree's builder to return. */
export function mount<D>(directory: Directory<D>, ctx: D): Mounted<D> {
  return { directory, ctx };
}

/** What a dynamic subtree's builder returns: a directory (its handlers get `ctx` undefined), a mounted one, or `undefined` for 404. */
export type Subtree = Directory<any> | Mounted<any> | undefined;

/** Builds a dynamic subtree from the parsed arguments of its path and the parent's context. */
export type SubtreeBuilder<P, C> = (params: P, ctx: C, request: Request) => Awaitable<Subtree>;

/** Methods in the order `/describe` and `Allow` list them. */
export const METHOD_ORDER: readonly Method[] = ["GET", "POST", "DELETE", "PUT", "PATCH"];

/** A node of the tree. Exactly one shape is used: static (services and suffixes or one argument), dynamic, or tail. @internal */
export class DirNode {
  services: Map<Method, Service> | undefined;
  suffixes: Map<string, DirNode> | undefined;
  arg: { readonly arg: Arg<unknown>; readonly node: DirNode } | undefined;
  dynamic: { readonly descr: string | undefined; readonly builder: SubtreeBuilder<unknown[], unknown> } | undefined;
  tail: { readonly arg: Arg<unknown>; readonly node: DirNode } | undefined;

  /** Whether nothing is registered here. */
  isEmpty(): boolean {
    return (
      this.services === undefined && this.suffixes === undefined && this.arg === undefined && this.dynamic === undefined && this.tail === undefined
    );
  }
}

function describeSteps(steps: readonly PathItem[]): string {
  return (
    "/" +
    steps
      .map((s) => (typeof s === "string" ? s : "tail" in s ? `<${s.tail.name}>*` : `<${s.name}>`))
      .join("/")
  );
}

/** Raised when two registrations cannot live at the same place of the tree. */
export class DirectoryConflict extends Error {
  override name = "DirectoryConflict";
}

/** A tree of services; `C` is the context handlers of this directory receive. */
export class Directory<C = void> {
  /** @internal */
  readonly root: DirNode = new DirNode();

  /** Registers services; throws a DirectoryConflict if a place is already taken. */
  register(...services: Service<C>[]): this {
    for (const s of services) {
      const node = this.insert(s.path);
      if (node.dynamic !== undefined || node.tail !== undefined) {
        throw new DirectoryConflict(`${s.method} ${describeSteps(s.path)}: a dynamic subtree is registered here`);
      }
      node.services ??= new Map();
      if (node.services.has(s.method)) throw new DirectoryConflict(`${s.method} ${describeSteps(s.path)} is already registered`);
      node.services.set(s.method, s);
    }
    return this;
  }

  /**
   * Registers a dynamic subtree at `path`: on each request that goes through it, `builder`
   * receives the path's parsed arguments and this directory's context, and returns the subtree
   * (or `undefined`, or throws `NotFound`, for 404). `descr` is shown by `/describe` when unresolved.
   */
  dynamic<const P extends readonly PathItem[]>(path: P, builder: SubtreeBuilder<ParamsOf<P>, C>, descr?: string): this {
    const node = this.insert(path);
    if (!node.isEmpty()) throw new DirectoryConflict(`dynamic ${describeSteps(path)}: the place is already used`);
    node.dynamic = { descr, builder: builder as SubtreeBuilder<unknown[], unknown> };
    return this;
  }

  /** Adds every registration of `other` (same context type) to this directory. */
  merge(other: Directory<C>): this {
    mergeNodes(this.root, other.root, []);
    return this;
  }

  private insert(path: readonly PathItem[]): DirNode {
    let node = this.root;
    const steps: PathItem[] = [];
    for (const item of path) {
      steps.push(item);
      if (node.dynamic !== undefined) throw new DirectoryConflict(`${describeSteps(steps)}: below a dynamic subtree`);
      if (typeof item === "object" && "tail" in item && node.tail?.arg === item.tail) {
        node = node.tail.node; // another method on the same tail
        continue;
      }
      if (node.tail !== undefined) throw new DirectoryConflict(`${describeSteps(steps)}: below a tail argument`);
      if (typeof item === "string") {
        if (node.arg !== undefined) throw new DirectoryConflict(`${describeSteps(steps)}: <${node.arg.arg.name}> is already dispatched here`);
        node.suffixes ??= new Map();
        let child = node.suffixes.get(item);
        if (child === undefined) node.suffixes.set(item, (child = new DirNode()));
        node = child;
      } else if ("tail" in item) {
        if (!node.isEmpty()) throw new DirectoryConflict(`${describeSteps(steps)}: a tail argument needs an empty place`);
        node.tail = { arg: item.tail as Arg<unknown>, node: new DirNode() };
        node = node.tail.node;
      } else {
        if (node.suffixes !== undefined) throw new DirectoryConflict(`${describeSteps(steps)}: static segments are already here`);
        if (node.arg !== undefined && node.arg.arg !== item) {
          throw new DirectoryConflict(`${describeSteps(steps)}: another argument <${node.arg.arg.name}> is dispatched here`);
        }
        node.arg ??= { arg: item as Arg<unknown>, node: new DirNode() };
        node = node.arg.node;
      }
    }
    return node;
  }
}

function mergeNodes(into: DirNode, from: DirNode, steps: PathItem[]): void {
  if (from.isEmpty()) return;
  if (into.dynamic !== undefined || from.dynamic !== undefined || into.tail !== undefined || from.tail !== undefined) {
    if (into.isEmpty()) {
      into.dynamic = from.dynamic;
      into.tail = from.tail;
      into.services = from.services;
      into.suffixes = from.suffixes;
      into.arg = from.arg;
      return;
    }
    throw new DirectoryConflict(`merge ${describeSteps(steps)}: dynamic subtree or tail argument conflicts`);
  }
  if (from.services !== undefined) {
    into.services ??= new Map();
    for (const [m, s] of from.services) {
      if (into.services.has(m)) throw new DirectoryConflict(`merge: ${m} ${describeSteps(steps)} is registered twice`);
      into.services.set(m, s);
    }
  }
  if (from.suffixes !== undefined) {
    if (into.arg !== undefined) throw new DirectoryConflict(`merge ${describeSteps(steps)}: static segments against an argument`);
    into.suffixes ??= new Map();
    for (const [name, child] of from.suffixes) {
      let target = into.suffixes.get(name);
      if (target === undefined) into.suffixes.set(name, (target = new DirNode()));
      mergeNodes(target, child, [...steps, name]);
    }
  }
  if (from.arg !== undefined) {
    if (into.suffixes !== undefined) throw new DirectoryConflict(`merge ${describeSteps(steps)}: an argument against static segments`);
    if (into.arg !== undefined && into.arg.arg !== from.arg.arg) {
      throw new DirectoryConflict(`merge ${describeSteps(steps)}: arguments <${into.arg.arg.name}> and <${from.arg.arg.name}> differ`);
    }
    into.arg ??= { arg: from.arg.arg, node: new DirNode() };
    mergeNodes(into.arg.node, from.arg.node, [...steps, from.arg.arg]);
  }
}

/** Where a path leads: a node, the arguments parsed in its directory, and that directory's context. */
export type Resolution =
  | { readonly kind: "found"; readonly node: DirNode; readonly params: unknown[]; readonly ctx: unknown }
  | { readonly kind: "not_found" }
  | { readonly kind: "bad_arg"; readonly context: string; readonly arg: Arg<unknown>; readonly message: string };

const NOT_FOUND: Resolution = { kind: "not_found" };

/**
 * Where a walk from a directory node through a path went, up to a service's node or to a dynamic
 * subtree (whose content is built again on each request): the nodes and parsed arguments depend
 * on nothing but the segments, and a registration can only add places, never move one that a
 * path already reaches. The arguments are frozen: requests share them.
 */
type Plan =
  | { readonly kind: "found"; readonly from: number; readonly node: DirNode; readonly params: readonly unknown[] }
  | {
      readonly kind: "dynamic";
      readonly from: number;
      readonly builder: SubtreeBuilder<unknown[], unknown>;
      readonly at: number;
      readonly params: readonly unknown[];
    };

/**
 * Plans per segments array and start node. The RPC handler keeps one segments array per URL it
 * serves often, so that a request on such a URL walks no directory but the dynamic subtrees'.
 */
const plans = new WeakMap<readonly string[], Map<DirNode, Plan>>();

function remember(segments: readonly string[], start: DirNode, plan: Plan): void {
  let byStart = plans.get(segments);
  if (byStart === undefined) plans.set(segments, (byStart = new Map()));
  else if (byStart.size >= 8) byStart.clear(); // a builder that makes a new directory per request
  byStart.set(start, plan);
}

/**
 * Follows `segments` from a directory's root, parsing arguments and building dynamic subtrees
 * on the way (resto's `resolve`). Synchronous unless a dynamic subtree's builder answers a
 * promise. A builder that throws anything but `NotFound` makes this throw (or reject).
 */
export function resolvePath(
  root: DirNode,
  ctx: unknown,
  segments: readonly string[],
  request: Request,
): Resolution | Promise<Resolution> {
  return walkFrom(root, ctx, segments, 0, request);
}

/** `walk` from `start` with no arguments parsed yet, through the plan of an earlier walk when there is one. */
function walkFrom(start: DirNode, ctx: unknown, segments: readonly string[], from: number, request: Request): Resolution | Promise<Resolution> {
  const plan = plans.get(segments)?.get(start);
  if (plan !== undefined && plan.from === from) {
    if (plan.kind === "found") return { kind: "found", node: plan.node, params: plan.params as unknown[], ctx };
    return enterDynamic(plan.builder, ctx, segments, plan.at, plan.params as unknown[], request);
  }
  return walk(start, ctx, segments, from, [], request);
}

function walk(
  start: DirNode,
  ctx: unknown,
  segments: readonly string[],
  from: number,
  params: unknown[],
  request: Request,
): Resolution | Promise<Resolution> {
  let node = start;
  let i = from;
  const n = segments.length;
  for (;;) {
    const dyn = node.dynamic;
    if (dyn !== undefined) {
      Object.freeze(params);
      remember(segments, start, { kind: "dynamic", from, builder: dyn.builder, at: i, params });
      return enterDynamic(dyn.builder, ctx, segments, i, params, request);
    }
    const t = node.tail;
    if (t !== undefined) {
      const values: unknown[] = [];
      for (; i < n; i++) {
        try {
          values.push(t.arg.parse(segments[i]!));
        } catch (e) {
          return badArg(segments, i, t.arg, e);
        }
      }
      params.push(Object.freeze(values));
      node = t.node;
      continue;
    }
    if (i === n) {
      // A place without services may still get some: only a service's place is remembered.
      if (node.services !== undefined) remember(segments, start, { kind: "found", from, node, params: Object.freeze(params) });
      return { kind: "found", node, params, ctx };
    }
    const seg = segments[i]!;
    const sfx = node.suffixes;
    if (sfx !== undefined) {
      const child = sfx.get(seg);
      if (child === undefined) return NOT_FOUND;
      node = child;
      i++;
      continue;
    }
    const a = node.arg;
    if (a !== undefined) {
      try {
        params.push(a.arg.parse(seg));
      } catch (e) {
        return badArg(segments, i, a.arg, e);
      }
      node = a.node;
      i++;
      continue;
    }
    return NOT_FOUND;
  }
}

function badArg(segments: readonly string[], i: number, arg: Arg<unknown>, e: unknown): Resolution {
  return {
    kind: "bad_arg",
    context: segments.slice(0, i + 1).join("/"),
    arg,
    message: e instanceof Error ? e.message : String(e),
  };
}

/** Builds a dynamic subtree and walks on in it; synchronous when the builder is. */
function enterDynamic(
  builder: SubtreeBuilder<unknown[], unknown>,
  ctx: unknown,
  segments: readonly string[],
  i: number,
  params: unknown[],
  request: Request,
): Resolution | Promise<Resolution> {
  let sub: Awaitable<Subtree>;
  try {
    sub = builder(params, ctx, request);
  } catch (e) {
    if (e instanceof NotFound) return NOT_FOUND;
    throw e;
  }
  if (sub instanceof Promise) {
    return sub.then(
      (s) => enterSubtree(s, segments, i, request),
      (e) => {
        if (e instanceof NotFound) return NOT_FOUND;
        throw e;
      },
    );
  }
  return enterSubtree(sub, segments, i, request);
}

function enterSubtree(sub: Subtree, segments: readonly string[], i: number, request: Request): Resolution | Promise<Resolution> {
  if (sub === undefined) return NOT_FOUND;
  if (sub instanceof Directory) return walkFrom(sub.root, undefined, segments, i, request);
  return walkFrom(sub.directory.root, sub.ctx, segments, i, request);
}

/** The methods registered at a node, in `METHOD_ORDER`. */
export function methodsAt(node: DirNode): Method[] {
  const s = node.services;
  if (s === undefined) return [];
  return METHOD_ORDER.filter((m) => s.has(m));
}
