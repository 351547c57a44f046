/**
 * `/stats/gc` and `/stats/memory` under Node, Bun and Deno: the heap figures of `node:v8`, the
 * collections counted from Node's `gc` performance entries (Bun and Deno report none: 0), and
 * Linux's `/proc/self/statm`; where there is no `/proc`, Octez's `ps` shape from the resident set
 * size. See `lib/rpc/services/stats.ts` for the mapping to OCaml's `Gc.stat`.
 * @module
 */
import { readFile } from "node:fs/promises";
import { totalmem } from "node:os";
import { constants, PerformanceObserver } from "node:perf_hooks";
import process from "node:process";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import type { GcStats, MemoryStats, RuntimeStats } from "../lib/rpc/services/stats.ts";

const WORD = 8;
const INT31_MAX = 2 ** 30 - 1;

/** Counts collections from now on, and reads the heap and the process's memory when asked. */
export function runtimeStats(): RuntimeStats {
  let minor = 0;
  let major = 0;
  let forced = 0;
  let top = 0;
  try {
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const detail = (entry as { detail?: { kind?: number; flags?: number } }).detail;
        if (detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
        else if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
          major++;
          if (((detail.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0) forced++;
        }
      }
    });
    observer.observe({ entryTypes: ["gc"] });
  } catch {
    // no `gc` entries on this runtime: the counts stay 0
  }
  const words = (bytes: number) => Math.min(INT31_MAX, Math.floor(bytes / WORD));
  return {
    gc(): GcStats {
      const heap = getHeapStatistics();
      const spaces = safeSpaces();
      top = Math.max(top, heap.total_heap_size);
      return {
        minor_words: 0,
        promoted_words: 0,
        major_words: 0,
        minor_collections: minor,
        major_collections: major,
        forced_major_collections: forced,
        heap_words: words(heap.total_heap_size),
        heap_chunks: spaces.length,
        live_words: words(heap.used_heap_size),
        live_blocks: 0,
        free_words: words(Math.max(0, heap.total_heap_size - heap.used_heap_size)),
        free_blocks: 0,
        largest_free: words(Math.max(0, ...spaces.map((s) => s.space_available_size))),
        fragments: 0,
        compactions: 0,
        top_heap_words: words(top),
        stack_size: 0,
      };
    },
    async memory(): Promise<MemoryStats> {
      const rss = process.memoryUsage().rss;
      const text = await readFile("/proc/self/statm", "utf8").catch(() => undefined);
      const fields = text?.trim().split(/\s+/).map(BigInt);
      if (fields !== undefined && fields.length >= 7 && fields[1]! > 0n) {
        const [size, resident, shared, textPages, lib, data, dt] = fields as [bigint, bigint, bigint, bigint, bigint, bigint, bigint];
        return { page_size: pageSize(rss, resident), size, resident, shared, text: textPages, lib, data, dt };
      }
      return { page_size: 4096, mem: Math.round((rss / totalmem()) * 1000) / 10, resident: BigInt(Math.floor(rss / 1024)) };
    },
  };
}

function safeSpaces(): { space_available_size: number }[] {
  try {
    return getHeapSpaceStatistics();
  } catch {
    return [];
  }
}

/** The page size: the resident set size in bytes over its size in pages, as a power of two. */
function pageSize(rssBytes: number, residentPages: bigint): number {
  const ratio = rssBytes / Number(residentPages);
  return 2 ** Math.max(12, Math.round(Math.log2(ratio)));
}
