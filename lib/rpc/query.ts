/**
 * Query strings (resto's `Query`): typed fields that are single (with a default), optional,
 * flags, or multi (repeatable). Parsing follows resto: unknown parameters are ignored, a second
 * occurrence of a non-multi field is an error, a flag is read as a boolean (empty value = true).
 * @module
 */
import { type Arg, parseBool } from "./arg.ts";
import { ocamlQuote } from "./ocaml.ts";

/** One query field; `T` is the type of its parsed value. */
export interface QueryField<T> {
  readonly kind: "single" | "optional" | "flag" | "multi";
  readonly arg: Arg<unknown> | undefined;
  readonly default: unknown;
  readonly description: string | undefined;
  /** Phantom member carrying `T`; never set. */
  readonly __value?: (v: T) => T;
}

/** A field with a default value when absent (resto's `field`; `single` in `/describe`). */
export function single<T>(arg: Arg<T>, defaultValue: T, description?: string): QueryField<T> {
  return { kind: "single", arg: arg as Arg<unknown>, default: defaultValue, description };
}

/** A field that may be absent (resto's `opt_field`). */
export function optional<T>(arg: Arg<T>, description?: string): QueryField<T | undefined> {
  return { kind: "optional", arg: arg as Arg<unknown>, default: undefined, description };
}

/** A flag: absent = false; present = its boolean reading (`?async`, `?async=yes` are true). */
export function flag(description?: string): QueryField<boolean> {
  return { kind: "flag", arg: undefined, default: false, description };
}

/** A repeatable field (`?next_protocol=P1&next_protocol=P2`), in request order. */
export function multi<T>(arg: Arg<T>, description?: string): QueryField<T[]> {
  return { kind: "multi", arg: arg as Arg<unknown>, default: undefined, description };
}

/** A record of named query fields. */
export type QuerySpec = { readonly [name: string]: QueryField<any> };

/** The parsed value of a query spec. */
export type QueryOf<S extends QuerySpec> = { [K in keyof S]: S[K] extends QueryField<infer T> ? T : never };

/** Raised when a query string does not parse; the message is resto's reason. */
export class QueryError extends Error {
  override name = "QueryError";
}

/** A compiled query: its fields in declaration order and a parser. */
export class Query<Q> {
  /** Fields in declaration order, for `/describe`. */
  readonly fields: readonly (readonly [string, QueryField<unknown>])[];
  private readonly index: Map<string, number>;
  /** Phantom member carrying `Q`; never set. */
  declare readonly __query?: (q: Q) => Q;

  constructor(spec: QuerySpec) {
    this.fields = Object.entries(spec);
    this.index = new Map(this.fields.map(([n], i) => [n, i]));
  }

  /** Parses the part of a URL after `?` (without it); throws a QueryError. */
  parse(search: string): Q {
    const n = this.fields.length;
    const values: unknown[] = new Array(n);
    const seen: boolean[] = new Array(n).fill(false);
    if (n > 0 && search.length > 0) {
      for (const piece of search.split("&")) {
        if (piece === "") continue;
        const eq = piece.indexOf("=");
        const name = decodeComponent(eq < 0 ? piece : piece.slice(0, eq));
        const i = this.index.get(name);
        if (i === undefined) continue;
        const value = eq < 0 ? "" : decodeComponent(piece.slice(eq + 1));
        const f = this.fields[i]![1];
        if (f.kind === "multi") {
          const v = parseValue(name, value, f.arg!);
          if (seen[i]) (values[i] as unknown[]).push(v);
          else values[i] = [v];
          seen[i] = true;
          continue;
        }
        if (seen[i]) throw new QueryError(`Duplicate argument '${name}' in query string.`);
        seen[i] = true;
        if (f.kind === "flag") {
          try {
            values[i] = parseBool(value);
          } catch (e) {
            throw new QueryError(`Failed to parse argument '${name}' (${ocamlQuote(value)}): ${(e as Error).message}`);
          }
        } else values[i] = parseValue(name, value, f.arg!);
      }
    }
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const [name, f] = this.fields[i]!;
      out[name] = seen[i] ? values[i] : f.kind === "multi" ? [] : f.default;
    }
    return out as Q;
  }
}

function parseValue(name: string, value: string, arg: Arg<unknown>): unknown {
  try {
    return arg.parse(value);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new QueryError(`Failed to parse argument '${name}' (${ocamlQuote(value)}): ${reason}`);
  }
}

/** Percent-decoding of a query component, `+` read as a space; malformed escapes are kept as they are. */
export function decodeComponent(text: string): string {
  const t = text.includes("+") ? text.replace(/\+/g, " ") : text;
  if (!t.includes("%")) return t;
  try {
    return decodeURIComponent(t);
  } catch {
    return t.replace(/%[0-9a-fA-F]{2}/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}

/** Compiles a query spec. @example `query({ recurse: single(boolArg, false) })` */
export function query<const S extends QuerySpec>(spec: S): Query<QueryOf<S>> {
  return new Query(spec);
}

/** The query with no fields (every parameter ignored). */
export const emptyQuery: Query<{}> = new Query({});
