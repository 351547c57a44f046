/** Types of `bundle-edge.mjs` (see there). */

/** The worker module, relative to the repository. */
export declare const EDGE_ENTRY: string;

/** Bundles the edge worker into `outdir` (`dist/edge` by default); the files written with their sizes. */
export declare function bundleEdge(options?: { outdir?: string; log?: (line: string) => void }): Promise<{ outdir: string; files: { path: string; bytes: number }[] }>;
