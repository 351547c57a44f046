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
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 63 /* ? */) {
      end = i;
      const hash = url.indexOf("#", i + 1);
      search = url.slice(i + 1, hash < 0 ? url.length : hash);
      break;
    }
    if (c === 35 /* # */) {
      end = i;
      break;
    }
  }
  const segments: string[] = [];
  let from = start;
  for (let i = start; i <= end; i++) {
    if (i === end || url.charCodeAt(i) === 47 /* / */) {
      if (i > from) {
        const seg = url.slice(from, i);
        segments.push(seg.includes("%") ? decodeSegment(seg) : seg);
      }
      from = i + 1;
    }
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
