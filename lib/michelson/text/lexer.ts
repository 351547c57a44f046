/**
 * The Micheline tokenizer, as Octez's `Micheline_parser.tokenize` (src/lib_micheline): positions
 * counted like its UTF-8 decoder (lines from 1, columns from 0; CR, LF, CR LF, NEL, FF, LS and PS
 * end lines), `#` and nested `/* *\/` comments, strings with the escapes `\" \\ \n \t \r \b`,
 * decimal integers, `0x` bytes, identifiers and annotations. It never stops at an error: it
 * records it and goes on, as Octez does.
 * @module
 */
import {
  annotationExceedsMaxLength,
  describeLocation,
  describePoint,
  invalidUtf8Sequence,
  missingBreakAfterNumber,
  undefinedEscapeSequence,
  unexpectedCharacter,
  unterminatedComment,
  unterminatedInteger,
  unterminatedString,
  type SourceLocation,
  type SourcePoint,
  type TextIssue,
  type TokenJson,
} from "./errors.ts";

/** Kinds of tokens. */
export type TokenKind =
  | "string"
  | "bytes"
  | "int"
  | "ident"
  | "annot"
  | "comment"
  | "eol_comment"
  | ";"
  | "("
  | ")"
  | "{"
  | "}";

/** A token: its kind, its text or value, and where it is. */
export interface Token {
  readonly kind: TokenKind;
  /** String contents (escapes resolved), or the source text of the other tokens. */
  readonly value: string;
  readonly loc: SourceLocation;
}

/** Longest annotation accepted, in bytes. */
export const MAX_ANNOT_LENGTH = 255;

/** The JSON form of a token, as Octez's parser errors carry it. */
export function tokenJson(t: Token): TokenJson {
  switch (t.kind) {
    case "string":
      return { string: t.value };
    case "int":
      return { int: t.value };
    case "annot":
      return { annot: t.value };
    case "comment":
      return { comment: t.value };
    case "eol_comment":
      return { comment: t.value, end_of_line: true };
    case "bytes":
      return { bytes: t.value };
    case "ident":
      return { ident: t.value };
    default:
      return { punctuation: t.kind };
  }
}

/** How Octez names a token kind in messages (`unexpected curly brace`). */
export function tokenKindName(t: Token): string {
  switch (t.kind) {
    case "(":
    case ")":
      return "parenthesis";
    case "{":
    case "}":
      return "curly brace";
    case "string":
      return "string constant";
    case "bytes":
      return "bytes constant";
    case "int":
      return "integer constant";
    case "ident":
      return "identifier";
    case "annot":
      return "annotation";
    case "comment":
    case "eol_comment":
      return "comment";
    case ";":
      return "semi colon";
  }
}

const END = -1;
const MALFORMED = -2;

interface Decoded {
  /** Code point, or END. */
  readonly c: number;
  /** Position before the character. */
  readonly at: SourcePoint;
  /** String index of the character. */
  readonly idx: number;
}

const isLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isIdentChar = (c: number): boolean => isLetter(c) || isDigit(c) || c === 0x5f;
const isAnnotChar = (c: number): boolean => isIdentChar(c) || c === 0x2e || c === 0x25 || c === 0x40;
const isAnnotStart = (c: number): boolean =>
  c === 0x40 || c === 0x3a || c === 0x24 || c === 0x26 || c === 0x25 || c === 0x21 || c === 0x3f;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Tokens of `source` and the problems found, in order. */
export function tokenize(source: string): { tokens: Token[]; issues: TextIssue[] } {
  if (typeof source !== "string") throw new TypeError(`Michelson source must be a string, got ${typeof source}`);
  const issues: TextIssue[] = [];
  const tokens: Token[] = [];
  // Decoder state (Uutf's counters).
  let idx = 0;
  let point = 0;
  let byte = 0;
  let line = 1;
  let column = 0;
  let lastCr = false;
  if (source.charCodeAt(0) === 0xfeff) {
    // An initial byte order mark is dropped by the decoder (its bytes are counted).
    idx = 1;
    byte = 3;
  }
  const pushback: Decoded[] = [];
  const here = (): SourcePoint => ({ point, byte, line, column });

  const decode = (): Decoded => {
    for (;;) {
      const at = here();
      const start = idx;
      if (idx >= source.length) return { c: END, at, idx: start };
      let c = source.codePointAt(idx)!;
      let size: number;
      if (c >= 0xd800 && c <= 0xdfff) {
        c = MALFORMED; // a lone surrogate: no Unicode scalar value
        idx += 1;
        size = 3;
      } else {
        idx += c > 0xffff ? 2 : 1;
        size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      }
      byte += size;
      point += 1;
      if (c === 0x0a) {
        if (!lastCr) {
          line++;
          column = 0;
        }
        lastCr = false;
      } else if (c === 0x0d) {
        lastCr = true;
        line++;
        column = 0;
      } else if (c === 0x85 || c === 0x0c || c === 0x2028 || c === 0x2029) {
        lastCr = false;
        line++;
        column = 0;
      } else {
        lastCr = false;
        column++;
      }
      if (c === MALFORMED) {
        const sequence = source.slice(start, idx);
        issues.push({
          item: invalidUtf8Sequence.create({ point: at, sequence }),
          message: `${describePoint(at)}, invalid UTF-8 sequence ${JSON.stringify(sequence)}`,
          location: { start: at, stop: at },
        });
        continue;
      }
      return { c, at, idx: start };
    }
  };
  const next = (): Decoded => pushback.pop() ?? decode();
  const back = (d: Decoded): void => {
    pushback.push(d);
  };
  const tok = (kind: TokenKind, value: string, start: SourcePoint, stop: SourcePoint): void => {
    tokens.push({ kind, value, loc: { start, stop } });
  };
  const locIssue = (
    def: { create(f: { location: SourceLocation }): TextIssue["item"] },
    location: SourceLocation,
    what: string,
  ): void => {
    issues.push({ item: def.create({ location }), message: `${describeLocation(location)}, ${what}`, location });
  };
  const missingBreak = (at: SourcePoint): void => {
    issues.push({
      item: missingBreakAfterNumber.create({ point: at }),
      message: `${describePoint(at)}, missing break after number`,
      location: { start: at, stop: at },
    });
  };

  // Reads the rest of an identifier-like token started at `s`.
  const word = (s: Decoded, allowed: (c: number) => boolean): { text: string; stop: SourcePoint } => {
    for (;;) {
      const d = next();
      if (d.c !== END && allowed(d.c)) continue;
      back(d);
      return { text: source.slice(s.idx, d.idx), stop: d.at };
    }
  };

  // After a leading 0 (or -0): a number, bytes, or the integer 0.
  const base = (s: Decoded): void => {
    const d = next();
    if (d.c !== END && isDigit(d.c)) return integer(s);
    if (d.c === 0x78 /* x */) return bytes(s);
    if (d.c !== END && isLetter(d.c)) missingBreak(d.at);
    back(d);
    tok("int", "0", s.at, d.at);
  };
  const integer = (s: Decoded): void => {
    for (;;) {
      const d = next();
      if (d.c !== END && isDigit(d.c)) continue;
      if (d.c !== END && isLetter(d.c)) missingBreak(d.at);
      back(d);
      tok("int", source.slice(s.idx, d.idx), s.at, d.at);
      return;
    }
  };
  const bytes = (s: Decoded): void => {
    for (;;) {
      const d = next();
      if (d.c !== END && isHexDigit(d.c)) continue;
      if (d.c !== END && isLetter(d.c)) missingBreak(d.at);
      back(d);
      tok("bytes", source.slice(s.idx, d.idx), s.at, d.at);
      return;
    }
  };
  const string = (s: Decoded): void => {
    let acc = "";
    for (;;) {
      const d = next();
      if (d.c === END) {
        locIssue(unterminatedString, { start: s.at, stop: d.at }, "unterminated string");
        tok("string", acc, s.at, here());
        return;
      }
      if (d.c === 0x22) {
        tok("string", acc, s.at, here());
        return;
      }
      if (d.c === 0x0a || d.c === 0x0d) {
        locIssue(unterminatedString, { start: s.at, stop: d.at }, "unterminated string");
        tok("string", acc, s.at, here());
        return;
      }
      if (d.c === 0x5c) {
        const e = next();
        if (e.c === END) {
          locIssue(unterminatedString, { start: s.at, stop: e.at }, "unterminated string");
          tok("string", acc, s.at, here());
          return;
        }
        switch (e.c) {
          case 0x22:
            acc += '"';
            break;
          case 0x72:
            acc += "\r";
            break;
          case 0x6e:
            acc += "\n";
            break;
          case 0x74:
            acc += "\t";
            break;
          case 0x62:
            acc += "\b";
            break;
          case 0x5c:
            acc += "\\";
            break;
          default: {
            const sequence = String.fromCodePoint(e.c);
            issues.push({
              item: undefinedEscapeSequence.create({ point: e.at, sequence }),
              message: `${describePoint(e.at)}, undefined escape sequence "${sequence}"`,
              location: { start: e.at, stop: e.at },
            });
          }
        }
        continue;
      }
      acc += String.fromCodePoint(d.c);
    }
  };
  const comment = (s: Decoded): void => {
    let level = 0;
    for (;;) {
      const d = next();
      if (d.c === END) {
        locIssue(unterminatedComment, { start: s.at, stop: d.at }, "unterminated comment");
        tok("comment", source.slice(s.idx, d.idx), s.at, d.at);
        return;
      }
      if (d.c === 0x2a /* * */) {
        const e = next();
        if (e.c === 0x2f /* / */) {
          if (level === 0) {
            tok("comment", source.slice(s.idx, idx), s.at, here());
            return;
          }
          level--;
        } else back(e);
      } else if (d.c === 0x2f) {
        const e = next();
        if (e.c === 0x2a) level++;
        else back(e);
      }
    }
  };
  const eolComment = (s: Decoded): void => {
    for (;;) {
      const d = next();
      if (d.c === 0x0a) {
        tok("eol_comment", source.slice(s.idx, d.idx), s.at, d.at);
        return;
      }
      if (d.c === END) {
        back(d);
        tok("eol_comment", source.slice(s.idx, d.idx), s.at, d.at);
        return;
      }
    }
  };

  for (;;) {
    const d = next();
    const c = d.c;
    if (c === END) break;
    if (isLetter(c)) {
      const w = word(d, isIdentChar);
      tok("ident", w.text, d.at, w.stop);
    } else if (isAnnotStart(c)) {
      const w = word(d, isAnnotChar);
      if (w.text.length > MAX_ANNOT_LENGTH) {
        locIssue(annotationExceedsMaxLength, { start: d.at, stop: w.stop }, `annotation exceeded maximum length (${MAX_ANNOT_LENGTH} chars)`);
      }
      tok("annot", w.text, d.at, w.stop);
    } else if (c === 0x2d /* - */) {
      const e = next();
      if (e.c === END) {
        locIssue(unterminatedInteger, { start: d.at, stop: e.at }, "unterminated integer");
        break;
      }
      if (e.c === 0x30) base(d);
      else if (isDigit(e.c)) integer(d);
      else {
        locIssue(unterminatedInteger, { start: d.at, stop: e.at }, "unterminated integer");
        back(e);
      }
    } else if (c === 0x30) base(d);
    else if (isDigit(c)) integer(d);
    else if (c === 0x20 || c === 0x0a) continue;
    else if (c === 0x3b) tok(";", ";", d.at, here());
    else if (c === 0x7b) tok("{", "{", d.at, here());
    else if (c === 0x7d) tok("}", "}", d.at, here());
    else if (c === 0x28) tok("(", "(", d.at, here());
    else if (c === 0x29) tok(")", ")", d.at, here());
    else if (c === 0x22) string(d);
    else if (c === 0x23) eolComment(d);
    else if (c === 0x2f) {
      const e = next();
      if (e.c === 0x2a) comment(d);
      else {
        issues.push({
          item: unexpectedCharacter.create({ point: d.at, character: "/" }),
          message: `${describePoint(d.at)}, unexpected character /`,
          location: { start: d.at, stop: d.at },
        });
        back(e);
      }
    } else {
      const character = String.fromCodePoint(c);
      issues.push({
        item: unexpectedCharacter.create({ point: d.at, character }),
        message: `${describePoint(d.at)}, unexpected character ${character}`,
        location: { start: d.at, stop: d.at },
      });
    }
  }
  return { tokens, issues };
}
