/**
 * `/stats/gc` and `/stats/memory` (Octez `stat_services.ml`), filled from the runtime through
 * {@link RuntimeStats}: the platform gives one (`platform/stats.ts` under Node, Bun and Deno);
 * without it (a browser) the figures a web page can see, zeros elsewhere.
 *
 * `/stats/gc` has the fields of OCaml's `Gc.stat`; what a JavaScript engine has in their place is
 * documented with {@link GcStats} (in words of 8 bytes). `/stats/memory` is Linux's
 * `/proc/self/statm` in pages, with the page size (Octez's `Linux_proc_statm`), or, where there is
 * no `/proc`, Octez's other shape (`Darwin_ps`: page size, % of memory, resident kilobytes).
 * @module
 */
import { Directory } from "../directory.ts";
import { float, int31, int64 } from "../../encoding/integers.ts";
import { obj, req } from "../../encoding/object.ts";
import { tagged, union } from "../../encoding/union.ts";
import type { Codec } from "../../encoding/core.ts";
import { service } from "../service.ts";

/**
 * OCaml's `Gc.stat`, as a JavaScript engine can fill it (V8's figures under Node; Bun and Deno give
 * V8's or JavaScriptCore's heap sizes through `node:v8`):
 * - `minor_collections`, `major_collections`, `forced_major_collections`: the engine's young
 *   generation collections (V8 scavenges), full collections (mark-sweep-compact) and those forced
 *   by the program, counted since start where the runtime reports them (Node's `gc` performance
 *   entries), else 0;
 * - `heap_words`: the heap's size; `live_words`: what is in use; `free_words`: the difference;
 *   `largest_free`: the largest space still available in one heap space; `heap_chunks`: the number
 *   of heap spaces; `top_heap_words`: the largest heap size seen;
 * - `minor_words`, `promoted_words`, `major_words` (words allocated), `live_blocks`,
 *   `free_blocks`, `fragments`, `compactions`, `stack_size`: no equivalent, 0.
 */
export interface GcStats {
  readonly minor_words: number;
  readonly promoted_words: number;
  readonly major_words: number;
  readonly minor_collections: number;
  readonly major_collections: number;
  readonly forced_major_collections: number;
  readonly heap_words: number;
  readonly heap_chunks: number;
  readonly live_words: number;
  readonly live_blocks: number;
  readonly free_words: number;
  readonly free_blocks: number;
  readonly largest_free: number;
  readonly fragments: number;
  readonly compactions: number;
  readonly top_heap_words: number;
  readonly stack_size: number;
}

/** Linux's `/proc/<pid>/statm` (sizes in pages) and the page size, as Octez answers it. */
export interface StatmMemory {
  readonly page_size: number;
  readonly size: bigint;
  readonly resident: bigint;
  readonly shared: bigint;
  readonly text: bigint;
  readonly lib: bigint;
  readonly data: bigint;
  readonly dt: bigint;
}

/** Octez's other shape (from `ps`): page size, % of the machine's memory, resident kilobytes. */
export interface PsMemory {
  readonly page_size: number;
  readonly mem: number;
  readonly resident: bigint;
}

/** What `/stats/memory` answers. */
export type MemoryStats = StatmMemory | PsMemory;

/** The runtime's figures behind `/stats/*`. */
export interface RuntimeStats {
  gc(): GcStats;
  memory(): Promise<MemoryStats>;
}

const GC_FIELDS = [
  "minor_words", "promoted_words", "major_words", "minor_collections", "major_collections", "forced_major_collections",
  "heap_words", "heap_chunks", "live_words", "live_blocks", "free_words", "free_blocks", "largest_free", "fragments",
  "compactions", "top_heap_words", "stack_size",
] as const;

/** Octez's `gc_stat_encoding`: the first three fields are floats, the others int31. */
export const gcStatsCodec: Codec<GcStats> = obj(
  ...GC_FIELDS.map((name, i) => req(name, i < 3 ? float : int31)),
) as unknown as Codec<GcStats>;

const statm: Codec<StatmMemory> = obj(
  req("page_size", int31),
  req("size", int64),
  req("resident", int64),
  req("shared", int64),
  req("text", int64),
  req("lib", int64),
  req("data", int64),
  req("dt", int64),
) as unknown as Codec<StatmMemory>;

const ps: Codec<PsMemory> = obj(req("page_size", int31), req("mem", float), req("resident", int64)) as unknown as Codec<PsMemory>;

/** Octez's `proc_stat_encoding`: `Linux_proc_statm` (tag 0) or `Darwin_ps` (tag 1). */
export const memoryStatsCodec: Codec<MemoryStats> = union<MemoryStats>([
  tagged(0, "Linux_proc_statm", statm, (m) => ("size" in m ? m : undefined), (m) => m),
  tagged(1, "Darwin_ps", ps, (m) => ("mem" in m ? m : undefined), (m) => m),
]);

/** What a web page can see: Chromium's `performance.memory` heap sizes, zeros elsewhere. */
export const webStats: RuntimeStats = {
  gc() {
    const m = (globalThis.performance as { memory?: { totalJSHeapSize: number; usedJSHeapSize: number } } | undefined)?.memory;
    const total = Math.floor((m?.totalJSHeapSize ?? 0) / 8);
    const used = Math.floor((m?.usedJSHeapSize ?? 0) / 8);
    const zero = Object.fromEntries(GC_FIELDS.map((f) => [f, 0])) as Record<(typeof GC_FIELDS)[number], number>;
    return { ...zero, heap_words: total, live_words: used, free_words: total - used, top_heap_words: total };
  },
  memory() {
    const m = (globalThis.performance as { memory?: { usedJSHeapSize: number } } | undefined)?.memory;
    return Promise.resolve({ page_size: 4096, mem: 0, resident: BigInt(Math.floor((m?.usedJSHeapSize ?? 0) / 1024)) });
  },
};

/** Registers `/stats/gc` and `/stats/memory`. */
export function statsServices(stats: RuntimeStats): Directory<void> {
  return new Directory().register(
    service({
      method: "GET",
      path: ["stats", "gc"],
      description: "Gets stats from the OCaml Garbage Collector",
      output: gcStatsCodec,
      handler: () => stats.gc(),
    }),
    service({
      method: "GET",
      path: ["stats", "memory"],
      description: "Gets memory usage stats",
      output: memoryStatsCodec,
      handler: () => stats.memory(),
    }),
  );
}
