/**
 * A small, strict validator for the JSON-schema subset that Octez writes in its OpenAPI files
 * (`docs/api/*-openapi.json`, copies in `test/vectors/octez/`), and the lookup of a
 * service's response schema in such a file.
 *
 * Strict means:
 * - objects are closed unless the schema says otherwise (`additionalProperties`), because Octez's
 *   JSON encodings (data-encoding `obj`) refuse unknown fields; `{ openObjects: true }` relaxes it;
 * - `oneOf` needs exactly one matching branch, `anyOf` at least one, `allOf` all;
 * - a keyword outside the supported subset is a schema error (thrown), never silently ignored.
 *
 * Opt-in `formats` add checks by component name for what the files only say in prose.
 *
 * Supported keywords: `type` (object, array, string, integer, number, boolean), `properties`,
 * `required`, `additionalProperties` (boolean or schema), `items`, `oneOf`, `anyOf`, `allOf`,
 * `$ref` (`#/components/schemas/<name>` only), `enum`, `pattern`, `minimum`, `maximum`,
 * `nullable`, `minLength`, `maxLength`, `minItems`, `maxItems`; annotations (`title`,
 * `description`, `default`, `example`, `format`) are ignored.
 *
 * @example
 * ```ts
 * const api = OpenApi.load(new URL("../vectors/octez/hangzhou-openapi.json", import.meta.url));
 * const schema = api.response("/helpers/current_level");
 * api.validate({ level: 1, level_position: 0, cycle: 0, cycle_position: 0, expected_commitment: false }, schema); // []
 * api.assertValid(value, schema, "GET /helpers/current_level"); // throws a readable list of errors
 * ```
 * @module
 */
import { readFileSync } from "node:fs";

/** A JSON-schema object as found in an OpenAPI file. */
export type Schema = { readonly [keyword: string]: unknown };

/** One validation failure: where in the value (`$.a[0].b`) and what is wrong. */
export interface SchemaError {
  readonly path: string;
  readonly message: string;
}

/** Options of {@link OpenApi.validate}. */
export interface ValidateOptions {
  /** Accept properties that the schema does not list even when it has no `additionalProperties` (default false). */
  readonly openObjects?: boolean;
  /**
   * Extra checks by component name, run when a `$ref` to that component is followed and the value
   * already fits it: a message when the value is wrong (for what the files only describe in prose,
   * such as "Base58Check-encoded" or "Decimal representation"), undefined when it is right.
   */
  readonly formats?: { readonly [component: string]: (value: unknown) => string | undefined };
}

/** The methods of an OpenAPI path item. */
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

interface OpenApiOperation {
  readonly responses?: { readonly [status: string]: { readonly content?: { readonly [media: string]: { readonly schema?: Schema } } } };
}

/** The parts of an OpenAPI document that the validator reads. */
export interface OpenApiDocument {
  readonly paths: { readonly [template: string]: { readonly [method: string]: OpenApiOperation } };
  readonly components?: { readonly schemas?: { readonly [name: string]: Schema } };
}

const ANNOTATIONS = new Set(["title", "description", "default", "example", "format"]);
const KEYWORDS = new Set([
  "type", "properties", "required", "additionalProperties", "items", "oneOf", "anyOf", "allOf", "$ref",
  "enum", "pattern", "minimum", "maximum", "nullable", "minLength", "maxLength", "minItems", "maxItems",
]);
const REF_PREFIX = "#/components/schemas/";
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.a`, `$["a b"]`: the path of property `key` below `path`. */
function child(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function short(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Renders errors one per line, `path: message`. */
export function formatErrors(errors: readonly SchemaError[]): string {
  return errors.map((e) => `  ${e.path}: ${e.message}`).join("\n");
}

/** An OpenAPI document with schema lookups and a validator bound to its components. */
export class OpenApi {
  /** The parsed document. */
  readonly doc: OpenApiDocument;
  /** A name for messages (the file name when loaded from a file). */
  readonly name: string;
  private readonly regexps = new Map<string, RegExp>();
  private formats: NonNullable<ValidateOptions["formats"]> = {};

  /** Wraps a parsed OpenAPI document. */
  constructor(doc: OpenApiDocument, name = "openapi") {
    if (!isPlainObject(doc) || !isPlainObject((doc as { paths?: unknown }).paths)) {
      throw new TypeError("OpenApi: doc must be an object with `paths`");
    }
    this.doc = doc;
    this.name = name;
  }

  /** Reads and parses an OpenAPI JSON file. */
  static load(file: string | URL): OpenApi {
    const text = readFileSync(file, "utf8");
    const name = String(file).split("/").pop() ?? String(file);
    return new OpenApi(JSON.parse(text) as OpenApiDocument, name);
  }

  /** Path templates that have `method`, in file order. */
  paths(method: HttpMethod = "get"): string[] {
    return Object.keys(this.doc.paths).filter((p) => this.doc.paths[p]![method] !== undefined);
  }

  /**
   * The path template that a concrete path (query string ignored) falls under: `{name}` matches one
   * segment; static segments win over arguments, left to right. Undefined when none matches.
   */
  template(path: string, method: HttpMethod = "get"): string | undefined {
    const segs = path.split("?")[0]!.split("/").filter((s) => s !== "");
    let best: { t: string; score: string } | undefined;
    for (const t of this.paths(method)) {
      const ts = t.split("/").filter((s) => s !== "");
      if (ts.length !== segs.length) continue;
      if (!ts.every((s, i) => /^\{[^}]+\}$/.test(s) || s === segs[i])) continue;
      const score = ts.map((s) => (s.startsWith("{") ? "0" : "1")).join("");
      if (best === undefined || score > best.score) best = { t, score };
    }
    return best?.t;
  }

  /** Whether (`template`, `method`) has a JSON schema for answer `status`. */
  hasResponse(template: string, method: HttpMethod = "get", status = "200"): boolean {
    return this.doc.paths[template]?.[method]?.responses?.[status]?.content?.["application/json"]?.schema !== undefined;
  }

  /** The JSON schema of the `status` answer of (`template`, `method`); throws when the file has none. */
  response(template: string, method: HttpMethod = "get", status = "200"): Schema {
    const item = this.doc.paths[template];
    if (item === undefined) throw new RangeError(`${this.name}: no path ${template}`);
    const op = item[method];
    if (op === undefined) throw new RangeError(`${this.name}: no ${method.toUpperCase()} ${template}`);
    const schema = op.responses?.[status]?.content?.["application/json"]?.schema;
    if (schema === undefined) throw new RangeError(`${this.name}: no application/json schema for ${status} of ${method.toUpperCase()} ${template}`);
    return schema;
  }

  /** A `$ref` schema to component `name`; throws when the file has no such component. */
  component(name: string): Schema {
    if (this.doc.components?.schemas?.[name] === undefined) throw new RangeError(`${this.name}: no component ${name}`);
    return { $ref: REF_PREFIX + name };
  }

  /** Follows `$ref`s until a schema without one (the `$ref` must be the only keyword). */
  resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; typeof s.$ref === "string"; i++) {
      if (i > 64) throw new RangeError(`${this.name}: $ref cycle at ${String(schema.$ref)}`);
      s = this.target(s.$ref as string);
    }
    return s;
  }

  /** Validates `value` against `schema`; the list of errors, empty when it conforms. */
  validate(value: unknown, schema: Schema, options: ValidateOptions = {}): SchemaError[] {
    const errors: SchemaError[] = [];
    this.formats = options.formats ?? {};
    try {
      this.check(value, schema, "$", errors, options.openObjects === true);
    } finally {
      this.formats = {};
    }
    return errors;
  }

  /** Throws an Error that lists every failure when `value` does not conform to `schema`. */
  assertValid(value: unknown, schema: Schema, label: string, options: ValidateOptions = {}): void {
    const errors = this.validate(value, schema, options);
    if (errors.length > 0) throw new Error(`${label} does not conform to ${this.name} (${errors.length} error(s)):\n${formatErrors(errors)}`);
  }

  private target(ref: string): Schema {
    if (!ref.startsWith(REF_PREFIX)) throw new RangeError(`${this.name}: unsupported $ref ${ref}`);
    const name = ref.slice(REF_PREFIX.length);
    const s = this.doc.components?.schemas?.[name];
    if (s === undefined) throw new RangeError(`${this.name}: dangling $ref ${ref}`);
    return s;
  }

  private regexp(pattern: string): RegExp {
    let re = this.regexps.get(pattern);
    if (re === undefined) {
      re = new RegExp(pattern, "u");
      this.regexps.set(pattern, re);
    }
    return re;
  }

  /** Branch label for messages: its title, else its $ref name, else its index. */
  private label(s: Schema, i: number): string {
    if (typeof s.title === "string") return s.title;
    if (typeof s.$ref === "string") {
      const t = this.target(s.$ref);
      return typeof t.title === "string" ? `${s.$ref.slice(REF_PREFIX.length)} (${t.title})` : s.$ref.slice(REF_PREFIX.length);
    }
    return `#${i}`;
  }

  private check(value: unknown, schema: Schema, path: string, errors: SchemaError[], open: boolean): void {
    if (!isPlainObject(schema)) throw new TypeError(`${this.name}: schema at ${path} is not an object`);
    for (const k of Object.keys(schema)) {
      if (!KEYWORDS.has(k) && !ANNOTATIONS.has(k)) throw new RangeError(`${this.name}: unsupported keyword ${k} in schema at ${path}`);
    }
    if (value === null && schema.nullable === true) return;
    if (typeof schema.$ref === "string") {
      const before = errors.length;
      this.check(value, this.target(schema.$ref), path, errors, open);
      const format = this.formats[schema.$ref.slice(REF_PREFIX.length)];
      if (format !== undefined && errors.length === before) {
        const message = format(value);
        if (message !== undefined) errors.push({ path, message });
      }
    }
    const t = schema.type;
    if (t !== undefined) {
      const k = kindOf(value);
      const ok = t === k || (t === "number" && k === "integer");
      if (!ok) {
        errors.push({ path, message: `expected ${String(t)}, got ${k}${k === "object" || k === "array" || k === "null" ? "" : ` ${short(value)}`}` });
        return;
      }
    }
    if (schema.enum !== undefined) {
      const values = schema.enum as unknown[];
      if (!values.some((e) => deepEqual(e, value))) {
        errors.push({ path, message: `${short(value)} is not one of ${values.map(short).join(", ")}` });
      }
    }
    if (typeof value === "string") this.checkString(value, schema, path, errors);
    if (typeof value === "number") this.checkNumber(value, schema, path, errors);
    if (Array.isArray(value)) this.checkArray(value, schema, path, errors, open);
    if (isPlainObject(value)) this.checkObject(value, schema, path, errors, open);
    if (schema.allOf !== undefined) {
      for (const s of schema.allOf as Schema[]) this.check(value, s, path, errors, open);
    }
    if (schema.anyOf !== undefined) this.checkBranches(value, schema.anyOf as Schema[], "anyOf", path, errors, open);
    if (schema.oneOf !== undefined) this.checkBranches(value, schema.oneOf as Schema[], "oneOf", path, errors, open);
  }

  private checkString(value: string, schema: Schema, path: string, errors: SchemaError[]): void {
    const n = [...value].length;
    if (typeof schema.minLength === "number" && n < schema.minLength) errors.push({ path, message: `string shorter than ${schema.minLength}` });
    if (typeof schema.maxLength === "number" && n > schema.maxLength) errors.push({ path, message: `string longer than ${schema.maxLength}` });
    if (typeof schema.pattern === "string" && !this.regexp(schema.pattern).test(value)) {
      errors.push({ path, message: `${short(value)} does not match /${schema.pattern}/` });
    }
  }

  private checkNumber(value: number, schema: Schema, path: string, errors: SchemaError[]): void {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push({ path, message: `${value} is below the minimum ${schema.minimum}` });
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push({ path, message: `${value} is above the maximum ${schema.maximum}` });
  }

  private checkArray(value: unknown[], schema: Schema, path: string, errors: SchemaError[], open: boolean): void {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) errors.push({ path, message: `fewer than ${schema.minItems} items` });
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) errors.push({ path, message: `more than ${schema.maxItems} items` });
    if (schema.items !== undefined) {
      if (Array.isArray(schema.items)) throw new RangeError(`${this.name}: tuple \`items\` is not supported (at ${path})`);
      value.forEach((v, i) => this.check(v, schema.items as Schema, child(path, i), errors, open));
    }
  }

  private checkObject(value: Record<string, unknown>, schema: Schema, path: string, errors: SchemaError[], open: boolean): void {
    const props = schema.properties as Record<string, Schema> | undefined;
    const required = (schema.required as string[] | undefined) ?? [];
    for (const r of required) {
      if (!Object.hasOwn(value, r)) errors.push({ path, message: `missing required property ${JSON.stringify(r)}` });
    }
    // Only an object schema closes the object: a bare `oneOf`/`$ref` wrapper leaves it to its branches.
    const describesObject = props !== undefined || schema.additionalProperties !== undefined || schema.type === "object";
    for (const [k, v] of Object.entries(value)) {
      const p = props?.[k];
      if (p !== undefined) {
        this.check(v, p, child(path, k), errors, open);
        continue;
      }
      const extra = schema.additionalProperties;
      if (extra === undefined) {
        if (describesObject && !open) errors.push({ path, message: `unexpected property ${JSON.stringify(k)}` });
      } else if (extra === false) {
        errors.push({ path, message: `unexpected property ${JSON.stringify(k)}` });
      } else if (isPlainObject(extra)) {
        this.check(v, extra, child(path, k), errors, open);
      } else if (extra !== true) {
        throw new RangeError(`${this.name}: bad additionalProperties at ${path}`);
      }
    }
  }

  private checkBranches(value: unknown, branches: Schema[], keyword: "oneOf" | "anyOf", path: string, errors: SchemaError[], open: boolean): void {
    const results = branches.map((b) => {
      const errs: SchemaError[] = [];
      this.check(value, b, path, errs, open);
      return errs;
    });
    const matched = results.flatMap((r, i) => (r.length === 0 ? [i] : []));
    if (matched.length === 0) {
      if (branches.length === 1) {
        errors.push(...results[0]!);
        return;
      }
      // The closest branch is the one whose errors sit deepest (it got furthest), then the fewest.
      const depth = (r: SchemaError[]) => Math.min(...r.map((e) => e.path.length));
      let best = 0;
      for (let i = 1; i < results.length; i++) {
        const a = results[i]!;
        const b = results[best]!;
        if (depth(a) > depth(b) || (depth(a) === depth(b) && a.length < b.length)) best = i;
      }
      const names = branches.map((b, i) => this.label(b, i));
      errors.push({ path, message: `matches no branch of ${keyword} (${names.join(" | ")}); closest is ${names[best]}:` });
      errors.push(...results[best]!.map((e) => ({ path: e.path, message: `  [${names[best]}] ${e.message}` })));
    } else if (keyword === "oneOf" && matched.length > 1) {
      errors.push({ path, message: `matches ${matched.length} branches of oneOf (${matched.map((i) => this.label(branches[i]!, i)).join(", ")}), one expected` });
    }
  }
}

/**
 * A copy of an object schema (or of each object branch of a `oneOf`) with `fields` added in front
 * and listed as required: how the OpenAPI files' block-level entries wrap a protocol's encoding
 * (`protocol`, `chain_id`, `hash`…). `$ref`s are followed; anything else is a RangeError.
 */
export function withLeadingFields(api: OpenApi, schema: Schema, fields: { readonly [name: string]: Schema }): Schema {
  const s = api.resolve(schema);
  if (s.oneOf !== undefined) {
    const { oneOf, ...rest } = s;
    return { ...rest, oneOf: (oneOf as Schema[]).map((b) => withLeadingFields(api, b, fields)) };
  }
  if (s.type !== "object") throw new RangeError(`withLeadingFields: not an object schema (${short(s).slice(0, 60)})`);
  return {
    ...s,
    properties: { ...fields, ...(s.properties as Record<string, Schema> | undefined) },
    required: [...Object.keys(fields), ...((s.required as string[] | undefined) ?? [])],
  };
}
