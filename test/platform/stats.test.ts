/**
 * The runtime's figures behind `/stats/gc` and `/stats/memory` (platform/stats.ts), and the commit
 * behind `/monitor/commit_hash` and `/version` (platform/commit.ts), read through a node.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import process from "node:process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../mod.ts";
import { readCommitInfo } from "../../platform/commit.ts";
import { runtimeStats } from "../../platform/stats.ts";

const isNode = (process.versions as Record<string, string | undefined>)["bun"] === undefined && (globalThis as { Deno?: unknown }).Deno === undefined;

test("/stats/gc: the heap in words of 8 bytes, and under Node the collections counted since start", async () => {
  const stats = runtimeStats();
  const node = await createNode({ bake: { mode: "manual" }, stats });
  try {
    let garbage: unknown[] = [];
    for (let i = 0; i < 200_000; i++) garbage.push({ i, s: String(i) });
    garbage = [];
    await new Promise((r) => setTimeout(r, 50)); // the gc entries come in a later task
    const gc = (await (await node.fetch(new Request("http://x/stats/gc"))).json()) as Record<string, number>;
    assert.ok(gc.heap_words! > 100_000, `heap_words ${gc.heap_words}`);
    assert.ok(gc.live_words! > 0 && gc.live_words! <= gc.heap_words!);
    assert.is(gc.free_words, gc.heap_words! - gc.live_words!);
    assert.ok(gc.top_heap_words! >= gc.heap_words!);
    assert.ok(gc.heap_chunks! > 0);
    for (const zero of ["minor_words", "promoted_words", "major_words", "live_blocks", "free_blocks", "fragments", "compactions", "stack_size"]) {
      assert.is(gc[zero], 0, zero);
    }
    if (isNode) assert.ok(gc.minor_collections! > 0, "200 000 objects make V8 scavenge");
    assert.is(garbage.length, 0);
  } finally {
    await node.close();
  }
});

test("/stats/memory: /proc/self/statm in pages, the page size read off the resident set size", async () => {
  const node = await createNode({ bake: { mode: "manual" }, stats: runtimeStats() });
  try {
    const m = (await (await node.fetch(new Request("http://x/stats/memory"))).json()) as Record<string, string | number>;
    const statm = await readFile("/proc/self/statm", "utf8").catch(() => undefined);
    if (statm === undefined) {
      assert.equal(Object.keys(m).sort(), ["mem", "page_size", "resident"]);
      return;
    }
    assert.equal(Object.keys(m), ["page_size", "size", "resident", "shared", "text", "lib", "data", "dt"]);
    const pageSize = Number(execFileSync("getconf", ["PAGE_SIZE"]).toString().trim());
    assert.is(m.page_size, pageSize);
    const rssPages = process.memoryUsage().rss / pageSize;
    assert.ok(Math.abs(Number(m.resident) - rssPages) / rssPages < 0.25, `resident ${m.resident} pages, rss ${rssPages}`);
    assert.ok(Number(m.size) >= Number(m.resident));
  } finally {
    await node.close();
  }
});

test("/monitor/commit_hash and /version's commit_info name the checkout's commit", async () => {
  const commit = await readCommitInfo();
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: new URL("../..", import.meta.url) }).toString().trim();
  assert.is(commit?.hash, head);
  const node = await createNode({ bake: { mode: "manual" }, ...(commit === undefined ? {} : { commit }) });
  try {
    assert.is(await (await node.fetch(new Request("http://x/monitor/commit_hash"))).json(), head);
    const version = (await (await node.fetch(new Request("http://x/version"))).json()) as { commit_info: { commit_hash: string; commit_date: string } };
    assert.is(version.commit_info.commit_hash, head);
    assert.match(version.commit_info.commit_date, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/);
  } finally {
    await node.close();
  }
  const anonymous = await createNode({ bake: { mode: "manual" } });
  try {
    assert.is(await (await anonymous.fetch(new Request("http://x/monitor/commit_hash"))).json(), "unknown");
  } finally {
    await anonymous.close();
  }
});

test("/monitor/active_chains: the main chain first, then the stream stays open until the client goes", async () => {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const abort = new AbortController();
    const res = await node.fetch(new Request("http://x/monitor/active_chains", { signal: abort.signal }));
    const reader = res.body!.getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value));
    assert.equal(first, [{ chain_id: "NetXdQprcVkpaWU" }]);
    const next = reader.read();
    const pending = await Promise.race([next.then(() => "chunk"), new Promise((r) => setTimeout(() => r("open"), 100))]);
    assert.is(pending, "open");
    await reader.cancel();
    abort.abort();
  } finally {
    await node.close();
  }
});

test.run();
