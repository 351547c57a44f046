/**
 * Reading the path and query of `request.url` without `new URL()` (which costs per request):
 * the path is split on `/` before each segment is percent-decoded (so `%2F` stays inside a
 * segment), empty segments are skipped, as resto does.
 * @module
 */

/** Path segments (decoded) and the raw query string (after `?`, without it) of a request URL. */
export interface RequestTarget {
  readonly segments: string[];
  readonly search: string;
}

/** Splits an absolute URL (or a path) into decoded path segments and its raw query string. */
export function parseTarget(url: string): RequestTarget {
  let start = 0;
  const scheme = url.indexOf("://");
  if (scheme >= 0) {
    start = url.indexOf("/", scheme + 3);
    if (start < 0) return { segments: [], search: "" };
  }
  let end = url.length;
  let search = "";
  const q = url.indexOf("?", start);
  const h = url.indexOf("#", start);
  if (q >= 0 && (h < 0 || q < h)) {
    end = q;
    search = url.slice(q + 1, h < 0 ? url.length : h);
  } else if (h >= 0) end = h;
  const segments: string[] = [];
  let from = start;
  while (from < end) {
    let slash = url.indexOf("/", from);
    if (slash < 0 || slash > end) slash = end;
    if (slash > from) {
      const seg = url.slice(from, slash);
      segments.push(seg.indexOf("%") < 0 ? seg : decodeSegment(seg));
    }
    from = slash + 1;
  }
  return { segments, search };
}

/** Percent-decoding of one path segment; malformed escapes are kept as they are. */
export function decodeSegment(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg.replace(/%[0-9a-fA-F]{2}/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}
