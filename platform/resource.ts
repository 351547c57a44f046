/**
 * Reading the node's data files (the embedded protocols' sources): a `file:` URL is read from the
 * disk (`node:fs`, which Node, Bun and Deno all have; Node's `fetch` does not read `file:`), any
 * other URL with `fetch`. `mod.ts` uses it, and `mod.ts` must also load in a browser: `node:fs` is
 * imported only when a `file:` URL is read (never in a page), through a specifier bundlers and the
 * browser-side type check leave alone.
 * @module
 */
import type { ResourceReader } from "../lib/protocols/sources/mod.ts";
import { fetchResource } from "../lib/protocols/sources/mod.ts";

const NODE_FS: string = "node:fs/promises";

/** The {@link ResourceReader} of the server runtimes. */
export const readResource: ResourceReader = async (url) => {
  if (url.protocol !== "file:") return fetchResource(url);
  const fs: { readFile(url: URL): Promise<Uint8Array> } = await import(NODE_FS);
  return new Uint8Array(await fs.readFile(url));
};
