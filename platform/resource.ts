/**
 * Reading the node's data files (the embedded protocols' sources): a `file:` URL is read from the
 * disk (`node:fs`, which Node, Bun and Deno all have; Node's `fetch` does not read `file:`), any
 * other URL with `fetch`.
 * @module
 */
import type { ResourceReader } from "../lib/protocols/sources/mod.ts";
import { fetchResource } from "../lib/protocols/sources/mod.ts";

/** The {@link ResourceReader} of the server runtimes. */
export const readResource: ResourceReader = async (url) => {
  if (url.protocol !== "file:") return fetchResource(url);
  const { readFile } = await import("node:fs/promises");
  return new Uint8Array(await readFile(url));
};
