/**
 * Reading the node's data files (the embedded protocols' sources) in a browser. Bundled, the
 * files' URLs are relative to the bundle (`dist/browser/tezos-node.js` and its copies of
 * `lib/protocols/sources/*.bin.gz` beside it), and `fetch` reads them when `/protocols/<hash>`
 * is asked for.
 * @module
 */
import type { ResourceReader } from "../../lib/protocols/sources/mod.ts";

/**
 * The {@link ResourceReader} of the browser bundle: `fetch`, with errors that say what a static
 * server did wrong (a missing file, or a `.gz` sent with `Content-Encoding: gzip`, which the
 * browser then decompresses before the node can).
 */
export const readBundledResource: ResourceReader = async (url) => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.href}: ${res.status} (the protocol sources are served beside the bundle)`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw new Error(`${url.href} is not gzip: serve .gz files as they are, without Content-Encoding: gzip`);
  }
  return bytes;
};
