/**
 * The cross-origin page (examples/browser/remote.html) in Chromium, following a real node on Node
 * started with `--cors-origin` for the pages' origin: the page streams its heads, and a block
 * baked from the test (POST /sandbox/bake) appears in it. The same page served from another
 * origin, not allowed, cannot read the node and says why.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { bounded, newPage, nodeOnNode, pagesServer, screenshot, until } from "./support.mjs";

const test = suite("heads across origins");
let pages;
let node;

/** The levels and hashes the page lists, newest first. */
function listed(page) {
  return page.$$eval("#heads li", (items) => items.map((li) => ({ level: Number(li.querySelector("b").textContent), hash: li.querySelector("code").textContent })));
}

test.before(bounded("setting up", async () => {
  pages = await pagesServer();
  node = await nodeOnNode(["--cors-origin", pages.url, "--bake", "manual"]);
}));

test("the page streams the heads of a node on another origin, blocks baked there included", bounded("follow", async () => {
  assert.is.not(new URL(node).origin, pages.url);
  const page = await newPage();
  await page.goto(`${pages.url}/examples/browser/remote.html?node=${encodeURIComponent(node)}`);
  const head = await (await fetch(`${node}/chains/main/blocks/head/header`)).json();
  await until(page, (hash) => document.querySelector("#heads li code")?.textContent === hash, head.hash);
  assert.equal(await listed(page), [{ level: head.level, hash: head.hash }]);
  assert.is(await page.textContent("#status"), `Following ${node}`);

  for (let i = 1; i <= 2; i++) {
    const response = await fetch(`${node}/sandbox/bake`, { method: "POST" });
    assert.is(response.status, 200);
    const [baked] = await response.json();
    await until(page, (hash) => document.querySelector("#heads li code")?.textContent === hash, baked);
    assert.equal((await listed(page))[0], { level: head.level + i, hash: baked });
  }
  assert.equal((await listed(page)).map((h) => h.level), [head.level + 2, head.level + 1, head.level]);
  assert.equal(page.errors, []);
  await screenshot(page, "browser-remote.png");
  await page.close();
}));

test("served from an origin the node does not allow, the page cannot read it and says so", bounded("refused", async () => {
  const other = await pagesServer();
  const page = await newPage();
  await page.goto(`${other.url}/examples/browser/remote.html?node=${encodeURIComponent(node)}`);
  await until(page, () => document.getElementById("status").classList.contains("error"));
  assert.match(await page.textContent("#status"), `is it running with --cors-origin ${other.url}?`);
  assert.equal(await listed(page), []);
  await page.close();
}));

test.run();
