/**
 * The few OCaml standard-library behaviours that show through Octez's RPC wording and argument
 * parsing: `int_of_string` (and its Int32/Int64 forms) and `%S` string quoting.
 * @module
 */

const UTF8 = new TextEncoder();

/**
 * OCaml's `int_of_string` for `bits`-bit integers (63 for `int`, 32 for `Int32`, 64 for `Int64`):
 * optional sign, `0x`/`0o`/`0b`/`0u` prefixes, `_` separators after the first digit. Decimal
 * values must fit the signed range; prefixed ones the unsigned range, wrapped to signed.
 * Returns `undefined` where OCaml raises `Failure`.
 */
export function parseOcamlInt(text: string, bits: number): bigint | undefined {
  let i = 0;
  let negative = false;
  const n = text.length;
  if (i < n && (text[i] === "-" || text[i] === "+")) {
    negative = text[i] === "-";
    i++;
  }
  let base = 10;
  let unsigned = false;
  if (i + 1 < n && text[i] === "0") {
    const p = text[i + 1];
    if (p === "x" || p === "X") base = 16;
    else if (p === "o" || p === "O") base = 8;
    else if (p === "b" || p === "B") base = 2;
    else if (p === "u" || p === "U") unsigned = true;
    if (base !== 10 || unsigned) i += 2;
  }
  if (i >= n) return undefined;
  let value = 0n;
  const b = BigInt(base);
  let first = true;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 95 /* _ */ && !first) continue;
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else return undefined;
    if (d >= base) return undefined;
    value = value * b + BigInt(d);
    first = false;
  }
  const max = 1n << BigInt(bits - 1);
  if (base === 10 && !unsigned) {
    if (negative ? value > max : value >= max) return undefined;
    return negative ? -value : value;
  }
  if (value >= max << 1n) return undefined;
  const wrapped = value >= max ? value - (max << 1n) : value;
  return negative ? -wrapped : wrapped;
}

/** OCaml's `%S`: a double-quoted string literal with OCaml escapes, byte by byte. */
export function ocamlQuote(text: string): string {
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 || c > 126 || c === 34 || c === 92) {
      plain = false;
      break;
    }
  }
  if (plain) return `"${text}"`;
  let out = '"';
  for (const c of UTF8.encode(text)) {
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    else if (c === 10) out += "\\n";
    else if (c === 9) out += "\\t";
    else if (c === 13) out += "\\r";
    else if (c === 8) out += "\\b";
    else if (c >= 32 && c <= 126) out += String.fromCharCode(c);
    else out += "\\" + String(c).padStart(3, "0");
  }
  return out + '"';
}
