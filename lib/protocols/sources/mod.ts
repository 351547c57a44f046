/**
 * The sources of the protocols this node embeds, as tezos-node serves them on
 * `GET /protocols/<hash>`: data files beside this module (see `SOURCES.md`), one gzip of Octez's
 * protocol record encoding per protocol, read only when asked for. Reading a file is the
 * platform's business: `createNode` takes a {@link ResourceReader} (`mod.ts` and `npm start` give
 * `platform/resource.ts`'s, which reads the file; the default is `fetch`, which reads the bundle's
 * own URLs in a browser and `file:` URLs under Deno and Bun, not Node).
 *
 * @example
 * ```ts
 * const bytes = await embeddedSources(HANGZHOU, (url) => fetch(url).then((r) => r.bytes()));
 * decodeBinary(protocolRecord, bytes!).components.length; // 97
 * ```
 * @module
 */
import { GENESIS_PROTOCOL } from "../genesis/command.ts";
import { HANGZHOU } from "../hangzhou/protocol.ts";

/** Reads the bytes at a URL: a file beside a module, or a resource of a web page. */
export type ResourceReader = (url: URL) => Promise<Uint8Array>;

/** Where each embedded protocol's sources are. */
const FILES: ReadonlyMap<string, URL> = new Map([
  [GENESIS_PROTOCOL, new URL("./ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im.bin.gz", import.meta.url)],
  [HANGZHOU, new URL("./PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx.bin.gz", import.meta.url)],
]);

/** Reads with `fetch` (`file:` URLs under Deno and Bun, any URL in a browser). */
export const fetchResource: ResourceReader = async (url) => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.href}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
};

/**
 * The binary protocol record of an embedded protocol (its sources), or `undefined` for a protocol
 * this node does not embed. Rejects when the file cannot be read.
 */
export async function embeddedSources(hash: string, read: ResourceReader): Promise<Uint8Array | undefined> {
  const url = FILES.get(hash);
  if (url === undefined) return undefined;
  const gz = await read(url);
  const stream = new Blob([gz as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
