/**
 * What the browser suite's files share: one Debian Chromium, headless, driven by playwright-core
 * with a fresh profile for the run; the example pages' static server (examples/browser/serve.mjs)
 * on a loopback port with a count of the paths asked; a node on Node (the command line) for the
 * cross-origin page; and a bound on each test so that a hang fails instead of waiting forever.
 * `closeAll()` (the runner calls it) ends all of them.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serveExamples } from "../../examples/browser/serve.mjs";

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Debian's Chromium, as CI installs it. */
export const CHROMIUM = "/usr/bin/chromium";
/** The flags Chromium runs with (besides playwright's own): no network of its own, no sandbox (root in CI). */
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
export const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";

/** How long one test may take before it fails (a hang guard, far above a normal run). */
const TEST_BOUND_MS = 180_000;
/** How long the page may take for one awaited change. */
const WAIT = { timeout: 120_000 };

/** When set (`run.mjs --screenshots`), the tests write the README's screenshots into docs/images/. */
export const SCREENSHOTS = process.argv.includes("--screenshots") ? join(ROOT, "docs", "images") : undefined;

const closers = [];

/** Runs `body`, failing the test if it has not ended after {@link TEST_BOUND_MS}. */
export function bounded(what, body) {
  return async (context) => {
    let timer;
    const hang = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no end after ${TEST_BOUND_MS} ms`)), TEST_BOUND_MS);
    });
    try {
      await Promise.race([body(context), hang]);
    } finally {
      clearTimeout(timer);
    }
  };
}

let context;
/** The browser context of the run (launched on first use, with a fresh profile folder). */
export async function browser() {
  if (context === undefined) {
    const profile = mkdtempSync(join(tmpdir(), "tezos-node-browser-test-"));
    closers.push(() => rmSync(profile, { recursive: true, force: true }));
    context = chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 820, height: 500 },
    });
    closers.push(async () => (await context).close());
  }
  return context;
}

/** A new tab whose page errors and console errors are kept in `errors` (for the assertions). */
export async function newPage() {
  const page = await (await browser()).newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && page.errors.push(m.text()));
  return page;
}

/** The example pages' static server, and how many times each path was asked of it. */
export async function pagesServer() {
  const asked = new Map();
  const server = await serveExamples({ onRequest: (path) => asked.set(path, (asked.get(path) ?? 0) + 1) });
  closers.push(() => server.close());
  return { url: server.url, asked };
}

/**
 * A node on Node from the command line (`platform/node/main.ts` through tsx), in memory, on a
 * free loopback port, with `args`; resolves to its URL once it prints that it listens.
 */
export function nodeOnNode(args) {
  const child = spawn(process.execPath, ["--import", "tsx", "platform/node/main.ts", "--memory", "--rpc-addr", "127.0.0.1:0", ...args],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const read = (text) => {
      output += text;
      const m = /Node listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) resolve(m[1]);
    };
    child.stdout.setEncoding("utf8").on("data", read);
    child.stderr.setEncoding("utf8").on("data", read);
    exited.then((code) => reject(new Error(`the node exited (${code}) before listening:\n${output}`)));
  });
}

/**
 * Waits until `condition(arg)`, evaluated in `page`, holds. When it does not within {@link WAIT},
 * the error tells what the page showed (its status line) and the page's errors so far.
 */
export async function until(page, condition, arg) {
  try {
    await page.waitForFunction(condition, arg, WAIT);
  } catch (e) {
    const status = await page.textContent("#status").catch(() => "(none)");
    throw new Error(`${e.message.split("\n")[0]}\n  the page says: ${status}\n  page errors: ${JSON.stringify(page.errors)}`);
  }
}

/** The JSON answer to `GET path` from the node in `page`'s worker (through the page's `tezosNode.fetch`). */
export function inPageJson(page, path) {
  return page.evaluate(async (path) => {
    const response = await globalThis.tezosNode.fetch(path);
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  }, path);
}

/** Writes a screenshot of `page` to docs/images/<name> when the run was asked for screenshots. */
export async function screenshot(page, name) {
  if (SCREENSHOTS === undefined) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const body = await page.locator("body").boundingBox(); // the page's content, with a margin
  const clip = { x: Math.max(0, body.x - 16), y: 0, width: body.width + 32, height: body.y + body.height + 16 };
  await page.screenshot({ path: join(SCREENSHOTS, name), clip });
}

/** Closes the browser, the servers and the nodes, last opened first. */
export async function closeAll() {
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (e) {
      console.error(`test/browser: closing: ${e}`);
    }
  }
}
