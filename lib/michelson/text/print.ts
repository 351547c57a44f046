/**
 * Octez-client's Michelson pretty printer (src/lib_micheline/micheline_printer.ml on an
 * unbounded formatter): a node whose one-line size is under 80 characters is printed on one
 * line (`{ a ; b }`, `Pair 1 (Some 2)`); a larger one is broken into aligned lines, a
 * sequence's items one per line after `{ `, a primitive's arguments one per line, next to
 * its name when the name (with its annotations) has at most 4 characters, else below it
 * indented by 2.
 *
 * @example
 * ```ts
 * printMicheline([{ prim: "CAR" }, { prim: "DUP" }]); // "{ CAR ; DUP }"
 * printMicheline({ prim: "Some", args: [{ int: "1" }] }, { wrapped: true }); // "(Some 1)"
 * ```
 * @module
 */
import type { Micheline, MichelinePrim } from "../../encoding/micheline.ts";

/** Options of {@link printMicheline}. */
export interface PrintOptions {
  /**
   * Parenthesise a root primitive that has arguments or annotations, as Octez's `print_expr`
   * does (how the client prints storages and stack items). Default false (`print_expr_unwrapped`,
   * how it prints scripts and `expand macros`).
   */
  readonly wrapped?: boolean;
  /** Spaces added after every line break (the column the client's surrounding box starts at). */
  readonly indent?: number;
  /** A comment to print with a node (`/* ... *\/`), as the client shows stack types. */
  readonly comment?: (node: Micheline) => string | undefined;
}

/** A node with its preformatting: whether it spans lines, its one-line size, its comment. */
interface Pre {
  readonly node: Micheline;
  readonly multiline: boolean;
  readonly size: number;
  readonly comment: string | undefined;
  readonly items: readonly Pre[];
}

const encoder = new TextEncoder();
/** Length in bytes, as OCaml's String.length counts. */
function blen(s: string): number {
  // Fast path for ASCII.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return encoder.encode(s).length;
  return s.length;
}

function preformat(n: Micheline, comment: PrintOptions["comment"]): Pre {
  const text = comment?.(n);
  const cml = text !== undefined && text.includes("\n");
  const csz = text === undefined ? 0 : blen(text) + 1;
  if (Array.isArray(n)) {
    const items = (n as readonly Micheline[]).map((i) => preformat(i, comment));
    let ml = cml;
    let size = 4 + csz;
    for (const i of items) {
      ml ||= i.multiline;
      size += 3 + i.size;
    }
    return { node: n, multiline: ml, size, comment: text, items };
  }
  const o = n as { int?: string; string?: string; bytes?: string } & Partial<MichelinePrim>;
  if (o.prim !== undefined) {
    const annots = o.annots ?? [];
    const asz = annots.length === 0 ? 0 : blen(annots.join(" ")) + 2;
    const items = (o.args ?? []).map((i) => preformat(i, comment));
    let ml = cml;
    let size = blen(o.prim) + csz + asz;
    for (const i of items) {
      ml ||= i.multiline;
      size += 1 + i.size;
    }
    return { node: n, multiline: ml, size, comment: text, items };
  }
  if (o.int !== undefined) return { node: n, multiline: cml, size: o.int.length + csz, comment: text, items: [] };
  if (o.string !== undefined) return { node: n, multiline: cml, size: blen(o.string) + csz, comment: text, items: [] };
  if (o.bytes !== undefined) return { node: n, multiline: cml, size: o.bytes.length + 2 + csz, comment: text, items: [] };
  throw new TypeError(`printMicheline: not a Micheline node: ${JSON.stringify(n)}`);
}

/** A minimal Format engine: horizontal boxes never break, vertical boxes always do. */
class Out {
  text = "";
  col = 0;
  private readonly boxes: { vertical: boolean; indent: number }[] = [];
  put(s: string): void {
    this.text += s;
    this.col += blen(s);
  }
  open(vertical: boolean, offset = 0): void {
    this.boxes.push({ vertical, indent: this.col + offset });
  }
  close(): void {
    this.boxes.pop();
  }
  /** A break hint: `spaces` spaces on one line, or a new line at the box's indentation + `offset`. */
  brk(spaces: number, offset = 0): void {
    const b = this.boxes[this.boxes.length - 1];
    if (b !== undefined && b.vertical) {
      const at = b.indent + offset;
      this.text += "\n" + " ".repeat(at);
      this.col = at;
    } else this.put(" ".repeat(spaces));
  }
  /** A forced new line at the current box's indentation. */
  newline(): void {
    const at = this.boxes[this.boxes.length - 1]?.indent ?? 0;
    this.text += "\n" + " ".repeat(at);
    this.col = at;
  }
}

/** Octez's string literal escapes: `"` `\n` `\r` `\b` `\t` `\\`; other characters as they are. */
export function printStringLiteral(s: string): string {
  let out = '"';
  for (const c of s) {
    switch (c) {
      case '"':
        out += '\\"';
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\\":
        out += "\\\\";
        break;
      default:
        out += c;
    }
  }
  return out + '"';
}

function printComment(o: Out, text: string): void {
  // `/* @[<h>text@] */` with the text's spaces as breaks (never breaking) and its newlines forced.
  o.put("/* ");
  o.open(false);
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    if (i > 0) o.newline();
    o.put(l);
  });
  o.close();
  o.put(" */");
}

function printUnwrapped(o: Out, p: Pre): void {
  const n = p.node;
  if (Array.isArray(n)) {
    if (p.items.length === 0 && p.comment === undefined) {
      o.put("{}");
      return;
    }
    o.put("{ ");
    o.open(p.multiline || p.size >= 80);
    if (p.comment !== undefined) {
      printComment(o, p.comment);
      if (p.items.length > 0) o.brk(1);
    }
    p.items.forEach((item, i) => {
      if (i > 0) {
        o.put(" ;");
        o.brk(1);
      }
      printUnwrapped(o, item);
    });
    o.close();
    o.put(" }");
    return;
  }
  const x = n as { int?: string; string?: string; bytes?: string } & Partial<MichelinePrim>;
  if (x.prim !== undefined) {
    const annots = x.annots ?? [];
    const name = annots.length === 0 ? x.prim : `${x.prim} ${annots.join(" ")}`;
    if (!p.multiline && p.size < 80) {
      if (p.items.length === 0) o.put(name);
      else {
        o.open(false);
        o.put(name + " ");
        p.items.forEach((item, i) => {
          if (i > 0) o.brk(1);
          printWrapped(o, item);
        });
        o.close();
      }
      if (p.comment !== undefined) {
        o.brk(1);
        o.put(`/* ${p.comment} */`);
      }
    } else {
      if (p.items.length === 0) o.put(name);
      else if (blen(name) <= 4) {
        o.put(name + " ");
        o.open(true);
        p.items.forEach((item, i) => {
          if (i > 0) o.brk(0);
          printWrapped(o, item);
        });
        o.close();
      } else {
        o.open(true, 2);
        o.put(name);
        p.items.forEach((item) => {
          o.brk(0);
          printWrapped(o, item);
        });
        o.close();
      }
      if (p.comment !== undefined) {
        o.brk(1);
        printComment(o, p.comment);
      }
    }
    return;
  }
  if (x.int !== undefined) o.put(x.int);
  else if (x.string !== undefined) o.put(printStringLiteral(x.string));
  else o.put("0x" + x.bytes!);
  if (p.comment !== undefined) {
    o.brk(1);
    printComment(o, p.comment);
  }
}

function printWrapped(o: Out, p: Pre): void {
  const n = p.node as Partial<MichelinePrim>;
  if (!Array.isArray(p.node) && n.prim !== undefined && ((n.args?.length ?? 0) > 0 || (n.annots?.length ?? 0) > 0)) {
    o.put("(");
    printUnwrapped(o, p);
    o.put(")");
  } else printUnwrapped(o, p);
}

/**
 * Prints a Micheline expression as octez-client does (`Micheline_printer.print_expr_unwrapped`,
 * or `print_expr` with `wrapped`). No trailing newline.
 */
export function printMicheline(node: Micheline, opts: PrintOptions = {}): string {
  const o = new Out();
  const p = preformat(node, opts.comment);
  if (opts.wrapped === true) printWrapped(o, p);
  else printUnwrapped(o, p);
  const indent = opts.indent ?? 0;
  return indent > 0 ? o.text.split("\n").join("\n" + " ".repeat(indent)) : o.text;
}
