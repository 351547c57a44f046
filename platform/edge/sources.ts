/**
 * The embedded protocols' sources in a worker: workerd has no files to read, so the two gzip files
 * of `lib/protocols/sources/` are deployed with the worker as data modules (each import answers
 * the file's bytes; `scripts/bundle-edge.mjs` copies them beside the bundle, and a worker's
 * configuration names `*.bin.gz` as `Data`), and this reader answers a file's URL by its name.
 * @module
 */
import type { ResourceReader } from "../../lib/protocols/sources/mod.ts";
import genesisSources from "../../lib/protocols/sources/ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im.bin.gz";
import hangzhouSources from "../../lib/protocols/sources/PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx.bin.gz";

/** The data modules by file name. */
const FILES: ReadonlyMap<string, ArrayBuffer> = new Map([
  ["ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im.bin.gz", genesisSources],
  ["PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx.bin.gz", hangzhouSources],
]);

/** The {@link ResourceReader} of a worker: the data module of the URL's file name. */
export const readBundledResource: ResourceReader = async (url) => {
  const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  const bytes = FILES.get(name);
  if (bytes === undefined) throw new Error(`${name} is not deployed with the worker`);
  return new Uint8Array(bytes);
};
