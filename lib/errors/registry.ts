/**
 * The error registry, in the style of Octez's error monad (`src/lib_error_monad`): every error
 * that can leave the node has a registered id, a kind (`temporary`, `permanent`, `branch`), a
 * title, a description and an encoding of its fields. Its JSON form is one object
 * `{"kind", "id", ...fields}`; `GET /errors` answers the JSON schema of every registered error.
 * @module
 */
import type { Encoding, Json, JsonSchema } from "../encoding/codec.ts";

/** Error category, as Octez prints it in the `kind` field. */
export type ErrorKind = "temporary" | "permanent" | "branch";

/** What `defineError` needs: the id (without prefix), kind, title, description and fields. */
export interface ErrorSpec<F> {
  /** Identifier, unique in the registry once the scope prefix is added (e.g. `delegate.not_registered`). */
  readonly id: string;
  /** Category of the error. */
  readonly kind: ErrorKind;
  /** Short human title. */
  readonly title: string;
  /** One-sentence description. */
  readonly description: string;
  /** Encoding of the error's own fields; its JSON form must be an object. Absent: no fields. */
  readonly fields?: Encoding<F>;
}

/** One element of an error trace: knows its id and kind and how to print itself as JSON. */
export interface TraceItem {
  readonly id: string;
  readonly kind: ErrorKind;
  /** `{"kind", "id", ...fields}`. */
  toJson(): { [key: string]: Json };
}

/** An error of a registered definition, with its fields. */
export class ErrorItem<F = void> implements TraceItem {
  readonly definition: ErrorDefinition<F>;
  readonly fields: F;
  constructor(definition: ErrorDefinition<F>, fields: F) {
    this.definition = definition;
    this.fields = fields;
  }
  /** Full id, prefix included. */
  get id(): string {
    return this.definition.id;
  }
  /** Category. */
  get kind(): ErrorKind {
    return this.definition.kind;
  }
  /** `{"kind", "id", ...fields}`, as Octez's error encoding. */
  toJson(): { [key: string]: Json } {
    const out: { [key: string]: Json } = { kind: this.definition.kind, id: this.definition.id };
    const enc = this.definition.fields;
    if (enc !== undefined) {
      const json = enc.toJson(this.fields);
      if (json === null || typeof json !== "object" || Array.isArray(json)) {
        throw new TypeError(`Error ${this.definition.id}: its fields encoding must produce a JSON object`);
      }
      for (const k in json) if (k !== "kind" && k !== "id") out[k] = json[k]!;
    }
    return out;
  }
}

/**
 * An exception carrying an error trace (most recent error first), as Octez's `tzresult` error
 * case. Its JSON form, the body of a failed RPC, is the list of the items' JSON forms.
 */
export class TezosError extends Error {
  override name = "TezosError";
  readonly trace: readonly TraceItem[];
  constructor(trace: TraceItem | readonly TraceItem[], options?: { cause?: unknown }) {
    const items: readonly TraceItem[] = Array.isArray(trace) ? trace : [trace as TraceItem];
    super(items.length === 0 ? "empty error trace" : items.map((i) => i.id).join(", "), options);
    this.trace = items;
  }
  /** `[{"kind", "id", ...fields}, ...]`. */
  toJson(): Json[] {
    return this.trace.map((i) => i.toJson());
  }
  /** A new error whose trace has `item` in front (Octez's `trace`: context added by a caller). */
  withContext(item: TraceItem): TezosError {
    return new TezosError([item, ...this.trace], { cause: this });
  }
}

/** A registered error: builds items and errors of its kind. */
export class ErrorDefinition<F = void> {
  readonly id: string;
  readonly kind: ErrorKind;
  readonly title: string;
  readonly description: string;
  readonly fields: Encoding<F> | undefined;
  constructor(id: string, spec: ErrorSpec<F>) {
    this.id = id;
    this.kind = spec.kind;
    this.title = spec.title;
    this.description = spec.description;
    this.fields = spec.fields;
  }
  /** A trace item of this error with the given fields. */
  create(fields: F): ErrorItem<F> {
    return new ErrorItem(this, fields);
  }
  /** A `TezosError` whose trace is this one error. */
  error(fields: F): TezosError {
    return new TezosError([new ErrorItem(this, fields)]);
  }
  /** Whether a trace item is an error of this definition. */
  is(item: TraceItem): item is ErrorItem<F> {
    return item instanceof ErrorItem && item.definition === (this as ErrorDefinition<unknown>);
  }
  /** The JSON schema of this error's JSON form (one case of the `/errors` union). */
  caseSchema(): { schema: JsonSchema; definitions: { [name: string]: Json } } {
    const definitions: { [name: string]: Json } = {};
    const properties: { [key: string]: Json } = {
      kind: { type: "string", enum: [this.kind] },
      id: { type: "string", enum: [this.id] },
    };
    const required: Json[] = ["kind", "id"];
    let extra: JsonSchema | undefined;
    if (this.fields !== undefined) {
      const fs = { ...this.fields.jsonSchema() };
      delete fs["$schema"];
      const defs = fs["definitions"];
      if (defs !== undefined && typeof defs === "object" && defs !== null && !Array.isArray(defs)) {
        Object.assign(definitions, defs);
        delete fs["definitions"];
      }
      const props = fs["properties"];
      if (fs["type"] === "object" && props !== null && typeof props === "object" && !Array.isArray(props)) {
        Object.assign(properties, props);
        const req = fs["required"];
        if (Array.isArray(req)) required.push(...req);
      } else if (Object.keys(fs).length > 0) {
        extra = fs; // not a plain object schema (a reference, a union): combine with allOf
      }
    }
    const base: JsonSchema = {
      title: this.title,
      description: this.description,
      type: "object",
      properties,
      required,
      additionalProperties: false,
    };
    const schema: JsonSchema =
      extra === undefined
        ? base
        : { title: this.title, description: this.description, allOf: [{ ...base, additionalProperties: true }, extra] };
    return { schema, definitions };
  }
}

/**
 * A set of error definitions; ids are unique within it. `defaultRegistry` holds every error of
 * the node (as Octez's global error table); separate registries are for tests.
 */
export class ErrorRegistry {
  private readonly defs: ErrorDefinition<unknown>[] = [];
  private readonly byId = new Map<string, ErrorDefinition<unknown>>();
  private schemaCache: string | undefined;

  /** Registers an error; throws a TypeError on a duplicate id or a malformed spec. */
  define<F = void>(spec: ErrorSpec<F>, prefix = ""): ErrorDefinition<F> {
    if (typeof spec.id !== "string" || spec.id === "") throw new TypeError("defineError: id must be a non-empty string");
    if (spec.kind !== "temporary" && spec.kind !== "permanent" && spec.kind !== "branch") {
      throw new TypeError(`defineError: kind must be temporary, permanent or branch, got ${String(spec.kind)}`);
    }
    const id = prefix + spec.id;
    if (this.byId.has(id)) throw new TypeError(`defineError: duplicate error id ${id}`);
    const def = new ErrorDefinition<F>(id, spec);
    this.defs.push(def as ErrorDefinition<unknown>);
    this.byId.set(id, def as ErrorDefinition<unknown>);
    this.schemaCache = undefined;
    return def;
  }

  /** A view that registers errors with an id prefix, e.g. `proto.011-PtHangz2.` for a protocol. */
  scope(prefix: string): { define<F = void>(spec: ErrorSpec<F>): ErrorDefinition<F> } {
    return { define: (spec) => this.define(spec, prefix) };
  }

  /** The definition registered under a full id. */
  get(id: string): ErrorDefinition<unknown> | undefined {
    return this.byId.get(id);
  }

  /**
   * An error's JSON read back through its definition's fields encoding, as Octez re-reads an
   * error: restores what a lossy transport changed (BSON gives back an empty array as `{}`).
   * Unknown ids and fields that do not decode are returned as they are.
   */
  normalizeJson(json: Json): Json {
    if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
    const def = typeof json["id"] === "string" ? this.byId.get(json["id"]) : undefined;
    if (def?.fields === undefined) return json;
    try {
      const { kind: _kind, id: _id, ...fields } = json;
      return def.create(def.fields.fromJson(fields)).toJson();
    } catch {
      return json;
    }
  }

  /** Every definition, in registration order. */
  list(): readonly ErrorDefinition<unknown>[] {
    return this.defs;
  }

  /**
   * The JSON schema of an error item, `GET /errors`'s answer: a `oneOf` with one case per
   * registered error (latest registered first, as Octez lists its cases).
   */
  schema(): JsonSchema {
    const cases: Json[] = [];
    const definitions: { [name: string]: Json } = {};
    for (let i = this.defs.length - 1; i >= 0; i--) {
      const c = this.defs[i]!.caseSchema();
      cases.push(c.schema);
      Object.assign(definitions, c.definitions);
    }
    const out: JsonSchema = { $schema: "http://json-schema.org/draft-04/schema#", oneOf: cases };
    if (Object.keys(definitions).length > 0) out["definitions"] = definitions;
    return out;
  }

  /** `schema()` serialised once (minified JSON and a newline), until the next definition. */
  schemaText(): string {
    return (this.schemaCache ??= JSON.stringify(this.schema()) + "\n");
  }
}

/** The node's registry: every error defined with `defineError` or `errorScope`. */
export const defaultRegistry: ErrorRegistry = new ErrorRegistry();

/**
 * Registers an error in the node's registry.
 *
 * @example
 * ```ts
 * const notRegistered = defineError({ id: "delegate.not_registered", kind: "temporary",
 *   title: "Not a registered delegate", description: "The provided public key hash is not the address of a registered delegate.",
 *   fields: pkhFields });
 * throw notRegistered.error({ pkh: "tz1..." });
 * ```
 */
export function defineError<F = void>(spec: ErrorSpec<F>): ErrorDefinition<F> {
  return defaultRegistry.define(spec);
}

/** Registers errors in the node's registry under an id prefix (a protocol passes `proto.011-PtHangz2.`). */
export function errorScope(prefix: string): { define<F = void>(spec: ErrorSpec<F>): ErrorDefinition<F> } {
  return defaultRegistry.scope(prefix);
}
