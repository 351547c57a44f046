/**
 * The node's log on stderr, as an operator sees it: the node started as a process under the
 * runtime running this file (npm run dev, bun or deno), a transfer injected, one refused, a bake,
 * a balance read; the records read back in the text and JSON formats, with their fields. And a
 * long bake stopped by SIGINT: the answer holds the blocks baked until then, the last of which is
 * the head the node has after a restart on its data directory, and the process exits 0.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { runtimeName } from "../../platform/current.ts";
import { kill, listening, type NodeProcess, npmStart, start, stop, tool, within } from "./process.ts";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";
const WAIT_MS = 60_000;
const HASH = /^B[1-9A-HJ-NP-Za-km-z]{50}$/;
const OP_HASH = /^o[1-9A-HJ-NP-Za-km-z]{50}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The node's entry under the runtime running this file. */
function launch(args: readonly string[]): NodeProcess {
  const runtime = runtimeName();
  if (runtime === "bun") return start(tool("bun")!, ["platform/bun/main.ts", ...args]);
  if (runtime === "deno") return start(tool("deno")!, ["run", "-A", "platform/deno/main.ts", ...args]);
  return npmStart(args);
}

async function using<T>(node: NodeProcess, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    kill(node);
  }
}

async function rpc(url: string, path: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await within(fetch(`${url}${path}`, init), WAIT_MS, path);
  return { status: res.status, body: await res.json() };
}

const post = (url: string, path: string, body: unknown) =>
  rpc(url, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/**
 * A transfer of `amount` mutez from bootstrap1 to bootstrap3, forged by the node, signed here with
 * bootstrap`signer`'s key (1, its own, by default); the injection's answer.
 */
async function transfer(url: string, amount: string, signer = 1): Promise<{ status: number; body: unknown }> {
  const head = "/chains/main/blocks/head";
  const counter = BigInt((await rpc(url, `${head}/context/contracts/${BOOTSTRAP1}/counter`)).body as string) + 1n;
  const forged = (await post(url, `${head}/helpers/forge/operations`, {
    branch: (await rpc(url, `${head}/hash`)).body,
    contents: [{ kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(counter), gas_limit: "1520", storage_limit: "0", amount, destination: BOOTSTRAP3 }],
  })).body as string;
  const signature = await sign(bootstrapSecretKeys()[signer - 1]!, fromHex(forged), genericWatermark());
  return post(url, "/injection/operation", forged + toHex(signature));
}

/** The number of operations of block `hash`, every validation pass together. */
async function operationCount(url: string, hash: string): Promise<number> {
  const passes = (await rpc(url, `/chains/main/blocks/${hash}/operations`)).body as unknown[][];
  return passes.reduce((sum, pass) => sum + pass.length, 0);
}

/** Waits until stderr, from `from` on, has a line matching `line`; that part of stderr. */
async function stderrUntil(node: NodeProcess, line: RegExp, from = 0): Promise<string> {
  const seen = new Promise<string>((resolve, reject) => {
    const check = () => {
      const text = node.output().stderr.slice(from);
      if (line.test(text)) resolve(text);
    };
    node.child.stderr!.on("data", check);
    check();
    node.exited.then((exit) => reject(new Error(`The node exited (${exit.code ?? exit.signal}) before logging ${line}:\n${exit.stderr}`)));
  });
  return within(seen, WAIT_MS, `a log line ${line}`);
}

/** A text log line's fields: `key=value` after the message (values possibly JSON-quoted). */
function textFields(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/ (\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)) out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  return out;
}

/** The text lines of one event (`2026-… INFO  block baked …`). */
function textLines(stderr: string, message: string): string[] {
  return stderr.split("\n").filter((l) => new RegExp(`^\\S+ INFO  ${message}( |$)`).test(l));
}

const logs = suite(`the node's log (${runtimeName()})`);

logs("text: start, bootstrap accounts, an operation injected and one refused, blocks baked, nothing for a read", async () => {
  const node = launch(["--memory", "--rpc-addr", "127.0.0.1:0"]);
  await using(node, async () => {
    const url = await listening(node, WAIT_MS);
    let stderr = await stderrUntil(node, /INFO  node started /);
    const [started] = textLines(stderr, "node started");
    assert.ok(TIME.test(started!.split(" ")[0]!), started);
    const s = textFields(started!);
    assert.equal([s["rpc"], s["chain"], s["head_level"], s["history_mode"], s["data_dir"]], [url, "NetXdQprcVkpaWU", "3", "full", "memory"]);
    assert.match(s["head"]!, HASH);
    // the start-up blocks, then the accounts as a table below their line
    assert.equal(textLines(stderr, "block baked").map((l) => textFields(l)["block_level"]), ["2", "3"]);
    stderr = await stderrUntil(node, /bootstrap5 /);
    const table = stderr.slice(stderr.indexOf("INFO  bootstrap accounts")).split("\n").slice(1, 7);
    assert.equal(table[0]!.trim().split(/\s{2,}/), ["name", "address", "public key", "secret key"]);
    assert.equal(table[1]!.trim().split(/\s+/), ["bootstrap1", BOOTSTRAP1, "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh"]);
    assert.equal(table.slice(1).map((l) => l.trim().split(/\s+/)[0]), ["bootstrap1", "bootstrap2", "bootstrap3", "bootstrap4", "bootstrap5"]);

    // an operation applied: its line, then the block auto mode bakes for it
    let from = node.output().stderr.length;
    const injected = await transfer(url, "1000000");
    assert.is(injected.status, 200);
    stderr = await stderrUntil(node, /INFO  block baked block_level=4 /, from);
    assert.equal(textFields(textLines(stderr, "operation injected")[0]!), { hash: injected.body as string });
    const baked = textFields(textLines(stderr, "block baked")[0]!);
    assert.is(baked["block_level"], "4");
    assert.match(baked["hash"]!, HASH);
    assert.match(baked["ms"]!, /^\d+$/);
    assert.is((await rpc(url, "/chains/main/blocks/head/hash")).body, baked["hash"]);
    // the transfer and the endorsements of the five bootstrap delegates
    assert.is(baked["operations"], String(await operationCount(url, baked["hash"]!)));
    assert.is(baked["operations"], "6");

    // an operation refused (signed with bootstrap2's key): its hash and the protocol's error id
    from = node.output().stderr.length;
    const refused = await transfer(url, "1000000", 2);
    assert.is(refused.status, 500);
    stderr = await stderrUntil(node, /INFO  operation refused /, from);
    const r = textFields(textLines(stderr, "operation refused")[0]!);
    assert.match(r["hash"]!, OP_HASH);
    assert.is(r["error"], "proto.011-PtHangz2.operation.invalid_signature");
    assert.match(JSON.stringify(refused.body), r["hash"]!);

    // a read logs nothing: the next line after the balance read is the bake's
    from = node.output().stderr.length;
    assert.is((await rpc(url, `/chains/main/blocks/head/context/contracts/${BOOTSTRAP3}/balance`)).status, 200);
    const bake = await rpc(url, "/sandbox/bake", { method: "POST" });
    stderr = await stderrUntil(node, /INFO  block baked block_level=5 /, from);
    assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);
    assert.is(textFields(stderr)["hash"], (bake.body as string[])[0]);

    const exit = await stop(node, "SIGTERM");
    assert.is(exit.code, 0, exit.stderr);
    assert.equal(textFields(textLines(exit.stderr, "node stopping")[0]!), { signal: "SIGTERM" });
  });
});

logs("json with -v: one object per line with time, level, event and fields; debug records for requests", async () => {
  const node = launch(["--memory", "--rpc-addr", "127.0.0.1:0", "--log-format", "json", "-v"]);
  await using(node, async () => {
    const url = await listening(node, WAIT_MS);
    await stderrUntil(node, /"event":"bootstrap_accounts"/);
    const injected = await transfer(url, "2000000");
    assert.is(injected.status, 200);
    const stderr = await stderrUntil(node, /"event":"block_baked","block_level":4,/);
    const records = stderr.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of records) {
      assert.equal(Object.keys(r).slice(0, 3), ["time", "level", "event"]);
      assert.ok(TIME.test(r["time"] as string), r["time"] as string);
    }
    const one = (event: string) => records.find((r) => r["event"] === event)!;
    assert.equal(Object.keys(one("node_started")), ["time", "level", "event", "rpc", "chain", "head_level", "head", "history_mode", "data_dir"]);
    assert.is(one("node_started")["rpc"], url);
    assert.is(one("node_started")["head_level"], 3);
    const accounts = one("bootstrap_accounts")["accounts"] as Record<string, string>[];
    assert.equal(accounts[2], { name: "bootstrap3", address: BOOTSTRAP3, "public key": "edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", "secret key": "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ" });
    assert.equal(one("operation_injected"), { ...one("operation_injected"), level: "info", hash: injected.body });
    const baked = records.filter((r) => r["event"] === "block_baked").at(-1)!;
    assert.equal(Object.keys(baked), ["time", "level", "event", "block_level", "hash", "operations", "priority", "ms"]);
    assert.equal([baked["level"], baked["block_level"], baked["operations"], baked["priority"]], ["info", 4, await operationCount(url, baked["hash"] as string), 0]);
    const requests = records.filter((r) => r["event"] === "rpc_request");
    const injection = requests.find((r) => r["path"] === "/injection/operation")!;
    assert.equal([injection["level"], injection["method"], injection["status"]], ["debug", "POST", 200]);
    assert.ok(requests.some((r) => (r["path"] as string).endsWith("/counter")), "the counter read is logged at debug");
    const exit = await stop(node, "SIGINT");
    assert.is(exit.code, 0, exit.stderr);
  });
});

logs("a long bake stopped by SIGINT answers the blocks baked so far; the last is the head after a restart; exit 0", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tezos-node-logs-"));
  const args = ["--data-dir", dir, "--rpc-addr", "127.0.0.1:0", "--bake", "manual"];
  try {
    const count = 10_000;
    const node = launch(args);
    const hashes = await using(node, async () => {
      const url = await listening(node, WAIT_MS);
      const from = node.output().stderr.length;
      const baking = fetch(`${url}/sandbox/bake?count=${count}`, { method: "POST" });
      // under way (a progress line, about a second in), then the signal
      const progress = await stderrUntil(node, /INFO  bake progress /, from);
      const p = textFields(textLines(progress, "bake progress")[0]!);
      assert.is(p["count"], String(count));
      assert.ok(Number(p["baked"]) > 0 && Number(p["block_level"]) === Number(p["baked"]) + 3, progress);
      process.kill(node.child.pid!, "SIGINT");
      const res = await within(baking, WAIT_MS, "the bake's answer");
      assert.is(res.status, 200);
      const hashes = (await res.json()) as string[];
      assert.ok(hashes.length > 0 && hashes.length < count, `${hashes.length} blocks`);
      for (const h of hashes) assert.match(h, HASH);
      const exit = await within(node.exited, WAIT_MS, "the node to exit");
      assert.is(exit.code, 0, exit.stderr);
      const interrupted = textFields(textLines(exit.stderr, "bake interrupted")[0]!);
      assert.equal([interrupted["baked"], interrupted["count"], interrupted["block_level"]], [String(hashes.length), String(count), String(hashes.length + 3)]);
      return hashes;
    });
    const again = launch(args);
    await using(again, async () => {
      const url = await listening(again, WAIT_MS);
      const header = (await rpc(url, "/chains/main/blocks/head/header")).body as { hash: string; level: number };
      assert.equal([header.hash, header.level], [hashes.at(-1), hashes.length + 3]);
      const exit = await stop(again, "SIGTERM");
      assert.is(exit.code, 0, exit.stderr);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

logs.run();
