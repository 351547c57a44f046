/**
 * JSON text of a value however deeply it nests. `JSON.stringify` recurses and throws a
 * RangeError past a runtime-dependent depth (about 1 500 levels on Node for arrays of objects),
 * which a deep Micheline expression in an RPC answer or error reaches; {@link stringifyJson} tries it
 * first and falls back to an iterative writer giving the same text.
 * @module
 */
import type { Json } from "./codec.ts";

/** The JSON text of `value` (as `JSON.stringify(value)`), without a depth limit. */
export function stringifyJson(value: Json): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return iterativeJsonText(value);
  }
}

type Frame = { readonly items: readonly [string | undefined, Json][]; i: number; readonly close: string };

/** The JSON text of `value`, written with an explicit stack (no recursion). */
export function iterativeJsonText(value: Json): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const write = (v: Json): void => {
    if (v === null || typeof v !== "object") {
      out.push(JSON.stringify(v) ?? "null");
    } else if (Array.isArray(v)) {
      out.push("[");
      stack.push({ items: v.map((x) => [undefined, x] as [undefined, Json]), i: 0, close: "]" });
    } else {
      out.push("{");
      const items: [string, Json][] = [];
      for (const k of Object.keys(v)) if (v[k] !== undefined) items.push([k, v[k]!]);
      stack.push({ items, i: 0, close: "}" });
    }
  };
  write(value);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.i === f.items.length) {
      out.push(f.close);
      stack.pop();
      continue;
    }
    const [key, v] = f.items[f.i]!;
    if (f.i++ > 0) out.push(",");
    if (key !== undefined) out.push(JSON.stringify(key), ":");
    write(v);
  }
  return out.join("");
}

/**
 * A short text of a value for an error message: its JSON text (however deep), cut to `max`
 * characters with "..." when longer; "absent" for `undefined`.
 */
export function jsonPreview(value: Json | undefined, max = 80): string {
  if (value === undefined) return "absent";
  const text = stringifyJson(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
