/**
 * Michelson text as octez-client reads and prints it (protocol 011 Hangzhou): the Micheline
 * tokenizer and parser (with Octez's errors, positions and indentation check), the client's
 * macro expansion, and its pretty printer. Everything works on the `Micheline` JSON form of
 * lib/encoding/micheline.ts.
 *
 * @example
 * ```ts
 * import { parseAndExpand, printMicheline } from "./lib/michelson/text/mod.ts";
 * const script = parseAndExpand("parameter unit; storage unit; code { CDR ; NIL operation ; PAIR }");
 * printMicheline(script); // "{ parameter unit ;\n  storage unit ;\n  code { CDR ; NIL operation ; PAIR } }"
 * ```
 * @module
 */
export {
  parseExpressionWithIssues,
  parseMichelineText,
  parseScriptText,
  parseToplevelWithIssues,
} from "./parse.ts";
export type { ParseOptions, ParseResult } from "./parse.ts";
export {
  checkPrimitives,
  expandMacros,
  expandMacrosWithIssues,
  parseAndExpand,
  parseAndExpandExpression,
  parseAndExpandScript,
} from "./macros.ts";
export type { ExpandOptions, ParseAndExpandOptions } from "./macros.ts";
export { printMicheline, printStringLiteral } from "./print.ts";
export type { PrintOptions } from "./print.ts";
export { MAX_ANNOT_LENGTH, tokenize } from "./lexer.ts";
export type { Token, TokenKind } from "./lexer.ts";
export { describeLocation, describePoint, MichelsonTextError, textErrors } from "./errors.ts";
export type { SourceLocation, SourcePoint, TextIssue } from "./errors.ts";
