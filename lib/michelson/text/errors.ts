/**
 * Errors of the Michelson text tools, with the ids Octez's client gives them:
 * `micheline.parse_error.*` (lexer and parser, src/lib_micheline), `michelson.macros.*`
 * (client macro expansion) and the protocol's primitive-name errors. They live in their own
 * registry, {@link textErrors}: they are client-side errors, not part of the node's `GET /errors`.
 * @module
 */
import { DecodeError, type Encoding, type Json, type JsonSchema } from "../../encoding/codec.ts";
import { ErrorRegistry, TezosError, type ErrorDefinition, type TraceItem } from "../../errors/registry.ts";

/** A position in source text, as Octez's Micheline parser counts it. */
export interface SourcePoint {
  /** Unicode characters before the position. */
  readonly point: number;
  /** UTF-8 bytes before the position. */
  readonly byte: number;
  /** Line, from 1. */
  readonly line: number;
  /** Column, from 0. */
  readonly column: number;
}

/** A stretch of source text (`stop` is just after its end). */
export interface SourceLocation {
  readonly start: SourcePoint;
  readonly stop: SourcePoint;
}

/** The registry of the client-side errors of the Michelson text tools. */
export const textErrors: ErrorRegistry = new ErrorRegistry();

function jsonOnly<T>(schema: JsonSchema, toJson: (v: T) => Json, fromJson: (j: Json) => T): Encoding<T> {
  return {
    size: { kind: "dynamic" },
    toJson,
    fromJson,
    write() {
      throw new TypeError("JSON-only error encoding");
    },
    read() {
      throw new DecodeError("JSON-only error encoding");
    },
    jsonSchema: () => schema,
    binarySchema: () => ({ toplevel: { fields: [] }, fields: [] }),
  };
}

function asObject(j: Json): { [k: string]: Json } {
  if (j === null || typeof j !== "object" || Array.isArray(j)) throw new DecodeError("expected an object");
  return j;
}

const pointSchema: JsonSchema = {
  type: "object",
  properties: {
    line: { type: "integer", minimum: 0, maximum: 65535 },
    column: { type: "integer", minimum: 0, maximum: 65535 },
    point: { type: "integer", minimum: 0, maximum: 65535 },
    byte: { type: "integer", minimum: 0, maximum: 65535 },
  },
  required: ["line", "column", "point", "byte"],
  additionalProperties: false,
};
const locationSchema: JsonSchema = {
  type: "object",
  properties: { start: pointSchema, stop: pointSchema },
  required: ["start", "stop"],
  additionalProperties: false,
};

function pointToJson(p: SourcePoint): Json {
  return { line: p.line, column: p.column, point: p.point, byte: p.byte };
}
function pointFromJson(j: Json): SourcePoint {
  const o = asObject(j);
  const n = (k: string): number => {
    const v = o[k];
    if (typeof v !== "number") throw new DecodeError(`expected an integer ${k}`, [k]);
    return v;
  };
  return { line: n("line"), column: n("column"), point: n("point"), byte: n("byte") };
}
function locationToJson(l: SourceLocation): Json {
  return { start: pointToJson(l.start), stop: pointToJson(l.stop) };
}
function locationFromJson(j: Json): SourceLocation {
  const o = asObject(j);
  return { start: pointFromJson(o["start"] ?? null), stop: pointFromJson(o["stop"] ?? null) };
}

/** Fields `{point, <name>: string}`. */
function pointAndString<K extends string>(name: K): Encoding<{ point: SourcePoint } & { [P in K]: string }> {
  type V = { point: SourcePoint } & { [P in K]: string };
  return jsonOnly<V>(
    {
      type: "object",
      properties: { point: pointSchema, [name]: { type: "string" } },
      required: ["point", name],
      additionalProperties: false,
    },
    (v) => ({ point: pointToJson(v.point), [name]: v[name] }),
    (j) => {
      const o = asObject(j);
      const s = o[name];
      if (typeof s !== "string") throw new DecodeError(`expected a string ${name}`, [name]);
      return { point: pointFromJson(o["point"] ?? null), [name]: s } as V;
    },
  );
}

const pointFields = jsonOnly<{ point: SourcePoint }>(
  { type: "object", properties: { point: pointSchema }, required: ["point"], additionalProperties: false },
  (v) => ({ point: pointToJson(v.point) }),
  (j) => ({ point: pointFromJson(asObject(j)["point"] ?? null) }),
);

const locationFields = jsonOnly<{ location: SourceLocation }>(
  { type: "object", properties: { location: locationSchema }, required: ["location"], additionalProperties: false },
  (v) => ({ location: locationToJson(v.location) }),
  (j) => ({ location: locationFromJson(asObject(j)["location"] ?? null) }),
);

/** A token as Octez's parser errors show it (`{"punctuation": "("}`, `{"int": "5"}`, ...). */
export type TokenJson = { readonly [k: string]: string | boolean };

const tokenFields = jsonOnly<{ location: SourceLocation; token: TokenJson }>(
  {
    type: "object",
    properties: { location: locationSchema, token: { type: "object" } },
    required: ["location", "token"],
    additionalProperties: false,
  },
  (v) => ({ location: locationToJson(v.location), token: { ...v.token } }),
  (j) => {
    const o = asObject(j);
    return { location: locationFromJson(o["location"] ?? null), token: asObject(o["token"] ?? null) as TokenJson };
  },
);

const misalignedFields = jsonOnly<{ location: SourceLocation; expression: Json }>(
  {
    type: "object",
    properties: { location: locationSchema, expression: {} },
    required: ["location", "expression"],
    additionalProperties: false,
  },
  (v) => ({ location: locationToJson(v.location), expression: v.expression }),
  (j) => {
    const o = asObject(j);
    return { location: locationFromJson(o["location"] ?? null), expression: o["expression"] ?? null };
  },
);

const macroName = jsonOnly<{ macro_name: string }>(
  {
    type: "object",
    properties: { macro_name: { type: "string" } },
    required: ["macro_name"],
    additionalProperties: false,
  },
  (v) => ({ macro_name: v.macro_name }),
  (j) => {
    const s = asObject(j)["macro_name"];
    if (typeof s !== "string") throw new DecodeError("expected a string macro_name", ["macro_name"]);
    return { macro_name: s };
  },
);

/** Fields of `michelson.macros.bas_arity` (sic, Octez's id). */
export interface ArityFields {
  readonly macro_name: string;
  readonly given_number_of_arguments: number;
  readonly expected_number_of_arguments: number;
}
const arityFields = jsonOnly<ArityFields>(
  {
    type: "object",
    properties: {
      macro_name: { type: "string" },
      given_number_of_arguments: { type: "integer", minimum: 0, maximum: 65535 },
      expected_number_of_arguments: { type: "integer", minimum: 0, maximum: 65535 },
    },
    required: ["macro_name", "given_number_of_arguments", "expected_number_of_arguments"],
    additionalProperties: false,
  },
  (v) => ({ ...v }),
  (j) => {
    const o = asObject(j);
    const name = o["macro_name"];
    const g = o["given_number_of_arguments"];
    const e = o["expected_number_of_arguments"];
    if (typeof name !== "string" || typeof g !== "number" || typeof e !== "number") throw new DecodeError("bad arity fields");
    return { macro_name: name, given_number_of_arguments: g, expected_number_of_arguments: e };
  },
);

const primName = jsonOnly<{ wrong_primitive_name: string }>(
  {
    type: "object",
    properties: { wrong_primitive_name: { type: "string" } },
    required: ["wrong_primitive_name"],
    additionalProperties: false,
  },
  (v) => ({ wrong_primitive_name: v.wrong_primitive_name }),
  (j) => {
    const s = asObject(j)["wrong_primitive_name"];
    if (typeof s !== "string") throw new DecodeError("expected a string wrong_primitive_name", ["wrong_primitive_name"]);
    return { wrong_primitive_name: s };
  },
);

const invalidPrimFields = jsonOnly<{ expression: Json; location: number }>(
  {
    type: "object",
    properties: { expression: {}, location: { type: "integer", minimum: -1073741824, maximum: 1073741823 } },
    required: ["expression", "location"],
    additionalProperties: false,
  },
  (v) => ({ expression: v.expression, location: v.location }),
  (j) => {
    const o = asObject(j);
    const l = o["location"];
    if (typeof l !== "number") throw new DecodeError("expected an integer location", ["location"]);
    return { expression: o["expression"] ?? null, location: l };
  },
);

const d = <F>(id: string, title: string, description: string, fields: Encoding<F>): ErrorDefinition<F> =>
  textErrors.define<F>({ id, kind: "permanent", title, description, fields });

/** `micheline.parse_error.invalid_utf8_sequence`. */
export const invalidUtf8Sequence = d(
  "micheline.parse_error.invalid_utf8_sequence",
  "Micheline parser error: invalid UTF-8 sequence",
  "Micheline source contains a byte sequence that is not valid UTF-8.",
  pointAndString("sequence"),
);
/** `micheline.parse_error.unexpected_character`. */
export const unexpectedCharacter = d(
  "micheline.parse_error.unexpected_character",
  "Micheline parser error: unexpected character",
  "Micheline source contains a character that starts no token.",
  pointAndString("character"),
);
/** `micheline.parse_error.undefined_escape_sequence`. */
export const undefinedEscapeSequence = d(
  "micheline.parse_error.undefined_escape_sequence",
  "Micheline parser error: undefined escape sequence",
  "A string literal of Micheline source contains an unknown escape sequence.",
  pointAndString("sequence"),
);
/** `micheline.parse_error.missing_break_after_number`. */
export const missingBreakAfterNumber = d(
  "micheline.parse_error.missing_break_after_number",
  "Micheline parser error: missing break after number",
  "A number of Micheline source is directly followed by a letter.",
  pointFields,
);
/** `micheline.parse_error.unterminated_string`. */
export const unterminatedString = d(
  "micheline.parse_error.unterminated_string",
  "Micheline parser error: unterminated string",
  "A string literal of Micheline source has no closing quote on its line.",
  locationFields,
);
/** `micheline.parse_error.unterminated_integer`. */
export const unterminatedInteger = d(
  "micheline.parse_error.unterminated_integer",
  "Micheline parser error: unterminated integer",
  "A minus sign of Micheline source is not followed by digits.",
  locationFields,
);
/** `micheline.parse_error.invalid_hex_bytes`. */
export const invalidHexBytes = d(
  "micheline.parse_error.invalid_hex_bytes",
  "Micheline parser error: invalid hex bytes",
  "A bytes literal (0x...) of Micheline source is not an even number of hex digits.",
  locationFields,
);
/** `micheline.parse_error.unterminated_comment`. */
export const unterminatedComment = d(
  "micheline.parse_error.unterminated_comment",
  "Micheline parser error: unterminated comment",
  "A /* comment of Micheline source is not closed.",
  locationFields,
);
/** `micheline.parse_error.annotation_exceeds_max_length`. */
export const annotationExceedsMaxLength = d(
  "micheline.parse_error.annotation_exceeds_max_length",
  "Micheline parser error: annotation exceeds max length",
  "An annotation of Micheline source is longer than 255 bytes.",
  locationFields,
);
/** `micheline.parse_error.unclosed_token`. */
export const unclosedToken = d(
  "micheline.parse_error.unclosed_token",
  "Micheline parser error: unclosed token",
  "A parenthesis or a brace of Micheline source is not closed.",
  tokenFields,
);
/** `micheline.parse_error.unexpected_token`. */
export const unexpectedToken = d(
  "micheline.parse_error.unexpected_token",
  "Micheline parser error: unexpected token",
  "Micheline source has a token where none of its kind can be.",
  tokenFields,
);
/** `micheline.parse_error.extra_token`. */
export const extraToken = d(
  "micheline.parse_error.extra_token",
  "Micheline parser error: extra token",
  "Micheline source has an extra semicolon or parenthesis.",
  tokenFields,
);
/** `micheline.parse_error.misaligned_node`. */
export const misalignedNode = d(
  "micheline.parse_error.misaligned_node",
  "Micheline parser error: misaligned node",
  "An expression of Micheline source is not aligned with its siblings.",
  misalignedFields,
);
/** `micheline.parse_error.empty_expression`. */
export const emptyExpression = textErrors.define({
  id: "micheline.parse_error.empty_expression",
  kind: "permanent",
  title: "Micheline parser error: empty_expression",
  description: "Micheline source meant to hold one expression holds none.",
});
/** `michelson.macros.unexpected_annotation`. */
export const unexpectedMacroAnnotation = d(
  "michelson.macros.unexpected_annotation",
  "Unexpected annotation",
  "A macro carries an annotation where the macro admits none.",
  macroName,
);
/** `michelson.macros.sequence_expected`. */
export const macroSequenceExpected = d(
  "michelson.macros.sequence_expected",
  "Macro expects a sequence",
  "A macro argument must be a sequence and is not.",
  macroName,
);
/** `michelson.macros.bas_arity` (Octez's spelling). */
export const macroInvalidArity = d(
  "michelson.macros.bas_arity",
  "Wrong number of arguments to macro",
  "A macro is given a wrong number of arguments.",
  arityFields,
);
/** `proto.011-PtHangz2.michelson_v1.unknown_primitive_name` (raised by the client's parser too). */
export const unknownPrimitiveName = d(
  "proto.011-PtHangz2.michelson_v1.unknown_primitive_name",
  "Unknown primitive name",
  "A primitive of a script or data expression is unknown.",
  primName,
);
/** `proto.011-PtHangz2.michelson_v1.invalid_primitive_name_case`. */
export const invalidPrimitiveNameCase = d(
  "proto.011-PtHangz2.michelson_v1.invalid_primitive_name_case",
  "Invalid primitive name case",
  "A primitive name is neither uppercase, lowercase nor capitalized.",
  primName,
);
/** `proto.011-PtHangz2.michelson_v1.invalid_primitive_name`: context around the two above. */
export const invalidPrimitiveName = d(
  "proto.011-PtHangz2.michelson_v1.invalid_primitive_name",
  "Invalid primitive name",
  "A primitive name of a script or data expression is unknown or has a wrong case.",
  invalidPrimFields,
);

/** One problem found in Michelson text, with a message as octez-client prints it. */
export interface TextIssue {
  readonly item: TraceItem;
  /** Octez-client's message, e.g. `At line 1 characters 4 to 8, unterminated string`. */
  readonly message: string;
  /** Where the problem is, if it is in the source. */
  readonly location?: SourceLocation;
}

/**
 * The error thrown by the parser and the macro expander: a {@link TezosError} whose trace holds
 * every problem found (in source order), and whose message is octez-client's text for them.
 */
export class MichelsonTextError extends TezosError {
  override name = "MichelsonTextError";
  /** The problems, in the order found. */
  readonly issues: readonly TextIssue[];
  constructor(issues: readonly TextIssue[]) {
    super(issues.map((i) => i.item));
    this.issues = issues;
    this.message = issues.map((i) => i.message).join("\n");
  }
  /** Where the first problem is, if it is in the source. */
  get location(): SourceLocation | undefined {
    return this.issues.find((i) => i.location !== undefined)?.location;
  }
}

/** Octez's `print_point`: `At line L character C`. */
export function describePoint(p: SourcePoint): string {
  return `At line ${p.line} character ${p.column}`;
}

/** Octez's `print_location`: `At line L characters C1 to C2` or `From line ... to line ...`. */
export function describeLocation(l: SourceLocation): string {
  if (l.start.line === l.stop.line) {
    if (l.start.column === l.stop.column) return `At line ${l.start.line} character ${l.start.column}`;
    return `At line ${l.start.line} characters ${l.start.column} to ${l.stop.column}`;
  }
  return `From line ${l.start.line} character ${l.start.column} to line ${l.stop.line} character ${l.stop.column}`;
}
