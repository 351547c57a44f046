/**
 * The node in a tab (examples/browser/index.html) in Chromium: it starts in the page's Web
 * Worker, the heads stream shows each new level, the button bakes, the chain outlives a reload
 * (IndexedDB), the protocol sources are fetched beside the bundle only when asked for, and a
 * Taquito 25 transfer through the worker is confirmed with bootstrap2's balance up by the amount.
 * The tests run in order on one tab.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP2, bounded, inPageJson, newPage, pagesServer, screenshot, until } from "./support.mjs";

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const test = suite("the node in a tab");
let page;
let server;

/** The level and hash the page shows, once it shows a head. */
async function shownHead() {
  await until(page, () => /^\d+$/.test(document.getElementById("level").textContent));
  return { level: Number(await page.textContent("#level")), hash: await page.textContent("#head") };
}

/** Waits until the page shows the head `hash`. */
async function headShown(hash) {
  await until(page, (hash) => document.getElementById("head").textContent === hash, hash);
}

test.before(bounded("setting up", async () => {
  server = await pagesServer();
  page = await newPage();
}));

test("the node starts in the page's Web Worker and the heads stream shows its head", bounded("start", async () => {
  await page.goto(`${server.url}/examples/browser/`);
  const shown = await shownHead();
  const header = await inPageJson(page, "/chains/main/blocks/head/header");
  await headShown(header.hash);
  assert.is(shown.level, 3, "a fresh node activates Hangzhou and bakes to level 3");
  assert.is((await shownHead()).level, header.level);
  assert.equal(page.workers().map((w) => new URL(w.url()).pathname), ["/examples/browser/node-worker.js"]);
  assert.is(server.asked.get("/dist/browser/tezos-node.js"), 1, "the worker loaded the bundle");
  assert.is(await page.textContent("#status"), "The node runs in a Web Worker; its chain is kept in IndexedDB.");
}));

test("the bake button bakes one block, which the heads stream shows", bounded("bake", async () => {
  const before = await shownHead();
  await page.click("#bake");
  await until(page, () => document.getElementById("baked").textContent.startsWith("baked "));
  const baked = (await page.textContent("#baked")).slice("baked ".length);
  assert.match(baked, /^B[1-9A-HJ-NP-Za-km-z]{50}$/);
  await headShown(baked);
  assert.is((await shownHead()).level, before.level + 1);
  const header = await inPageJson(page, `/chains/main/blocks/${baked}/header`);
  assert.is(header.level, before.level + 1);
  assert.is(header.predecessor, before.hash);
}));

test("the protocol sources are fetched beside the bundle only when /protocols/<hash> asks", bounded("sources", async () => {
  const file = `/dist/browser/${HANGZHOU}.bin.gz`;
  assert.is(server.asked.get(file), undefined, "not fetched at start");
  const protocol = await inPageJson(page, `/protocols/${HANGZHOU}`);
  assert.is(server.asked.get(file), 1);
  assert.is(protocol.expected_env_version, 3);
  assert.is(protocol.components.length, 97);
  assert.is(protocol.components[0].name, "Misc");
}));

test("a reload keeps the chain: the same head, at the same level, from IndexedDB", bounded("reload", async () => {
  const before = await shownHead();
  assert.ok(before.level > 3, `the chain has grown past its first start (level ${before.level})`);
  await page.reload();
  const after = await shownHead();
  assert.equal(after, before);
  assert.equal(await inPageJson(page, "/chains/main/blocks/head/hash"), before.hash);
  assert.is(page.workers().length, 1);
}));

/** The sum of the balance updates of `pkh`'s contract in `value` (a block or an operation), wherever they are. */
function contractUpdates(value, pkh) {
  if (Array.isArray(value)) return value.reduce((sum, v) => sum + contractUpdates(v, pkh), 0n);
  if (value === null || typeof value !== "object") return 0n;
  let sum = 0n;
  for (const [key, v] of Object.entries(value)) {
    if (key === "balance_updates") {
      for (const u of v) if (u.kind === "contract" && u.contract === pkh) sum += BigInt(u.change);
    } else sum += contractUpdates(v, pkh);
  }
  return sum;
}

test("a Taquito transfer through the worker is confirmed; bootstrap2's balance goes up by the amount", bounded("transfer", async () => {
  await page.fill("#amount", "2.5");
  await page.click("#send");
  await until(page, () => {
    const status = document.getElementById("op-status");
    return status.textContent.startsWith("confirmed") || status.classList.contains("error");
  });
  const status = await page.textContent("#op-status");
  const confirmed = /^confirmed at level (\d+)$/.exec(status);
  assert.ok(confirmed, `the page says: ${status}`);
  const opHash = await page.textContent("#op-hash");
  assert.match(opHash, /^o[1-9A-HJ-NP-Za-km-z]{50}$/);

  // The block that carries it, read through the in-page node.
  const block = await inPageJson(page, `/chains/main/blocks/${confirmed[1]}`);
  const op = block.operations[3].find((o) => o.hash === opHash);
  assert.ok(op, `${opHash} is in block ${confirmed[1]}`);
  const [transfer] = op.contents;
  assert.equal([transfer.kind, transfer.source, transfer.destination, transfer.amount], ["transaction", "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", BOOTSTRAP2, "2500000"]);
  assert.is(transfer.metadata.operation_result.status, "applied");

  // bootstrap2 also bakes and endorses (deposits leave its balance): its balance moved by the
  // amount plus what its other balance updates in this block say.
  const balance = async (block) => BigInt(await inPageJson(page, `/chains/main/blocks/${block}/context/contracts/${BOOTSTRAP2}/balance`));
  const moved = (await balance(block.hash)) - (await balance(block.header.predecessor));
  const others = contractUpdates(block, BOOTSTRAP2) - contractUpdates(op, BOOTSTRAP2);
  assert.is(contractUpdates(op, BOOTSTRAP2), 2_500_000n);
  assert.is(moved - others, 2_500_000n);
  await until(page, () => document.getElementById("balance").textContent !== "–");
  await screenshot(page, "browser-example.png");
}));

test("a bad request through the worker gets the node's Octez error, whole", bounded("bad request", async () => {
  const answer = await page.evaluate(async () => {
    const response = await globalThis.tezosNode.fetch("/chains/main/blocks/nonsense/header");
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
  });
  assert.is(answer.status, 400);
  assert.is(answer.type, "text/plain");
  assert.is(answer.body, 'Failed to parsed an argument in path. After "chains/main/blocks/nonsense", '
    + 'the value "Cannot parse block identifier: nonsense" is not acceptable for type "block_id"');
  assert.ok((await inPageJson(page, "/chains/main/blocks/head/header")).level > 3, "the node goes on");
}));

test("aborting a monitor stream read through the worker ends it in the page", bounded("abort", async () => {
  const outcome = await page.evaluate(async () => {
    const stop = new AbortController();
    const response = await globalThis.tezosNode.fetch("/monitor/heads/main", { signal: stop.signal });
    const reader = response.body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    stop.abort();
    try {
      await reader.read();
      return { first, after: "read on" };
    } catch (e) {
      return { first, after: e.name };
    }
  });
  assert.is(JSON.parse(outcome.first).hash, await page.textContent("#head"));
  assert.is(outcome.after, "AbortError");
}));

test("no page errors", () => {
  assert.equal(page.errors, []);
});

test("a page whose node cannot load says so, and its requests fail instead of waiting", bounded("no bundle", async () => {
  const context = page.context();
  const missing = (route) => route.fulfill({ status: 404, body: "Not found" });
  await context.route("**/dist/browser/tezos-node.js", missing);
  const other = await newPage();
  try {
    await other.goto(`${server.url}/examples/browser/`);
    await until(other, () => document.getElementById("status").classList.contains("error"));
    assert.is(await other.textContent("#status"), "the worker could not be loaded");
    const later = await other.evaluate(() => globalThis.tezosNode.fetch("/chains/main/blocks/head/hash").then(() => "answered", (e) => e.message));
    assert.is(later, "the worker could not be loaded");
  } finally {
    await context.unroute("**/dist/browser/tezos-node.js", missing);
    await other.close();
  }
}));

test.run();
