/**
 * CORS as resto does it: an `Origin` matching an allowed origin (exactly, `*`, or the allowed
 * origin followed by `/`) gets `Access-Control-Allow-Origin: <that allowed origin>`; the
 * pre-flight answer lists the allowed headers, `Content-Type` always among them.
 * @module
 */

/** CORS options, as the node's `--cors-origin` and `--cors-header`. */
export interface CorsOptions {
  /** Allowed origins (`*` for any). */
  readonly origins: readonly string[];
  /** Extra allowed request headers (`Content-Type` is always allowed). */
  readonly headers?: readonly string[];
}

/** The allowed origin matching `origin` (the longest one if several), or undefined. */
export function matchOrigin(allowed: readonly string[], origin: string): string | undefined {
  let best: string | undefined;
  for (const a of allowed) {
    const ok = a === "*" || a === origin || (origin.length > a.length && origin.startsWith(a) && origin.charCodeAt(a.length) === 47);
    if (ok && (best === undefined || a.length > best.length)) best = a;
  }
  return best;
}

/** The `Access-Control-Allow-Headers` value: the headers lowercased, `content-type` among them, sorted, each once. */
export function allowedHeaders(headers: readonly string[] = []): string {
  // Octez lower-cases the operator's headers and adds "Content-Type" as is, so that
  // `--cors-header content-type` lists it twice; here each header is listed once.
  const set = new Set(headers.map((h) => h.toLowerCase()));
  set.add("content-type");
  return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(", ");
}
