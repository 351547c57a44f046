/**
 * `--synchronisation-threshold`, `--sync-latency` and `--baker-keys` through `npm start`: the node
 * runs with what the command line says (`is_bootstrapped`, `/config`, the baker of its blocks), and
 * a bad value ends the process with one line.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { kill, listening, type NodeProcess, npmStart, within } from "./process.ts";

const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";

async function using<T>(node: NodeProcess, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    kill(node);
  }
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await within(fetch(url, init), 30_000, url);
  assert.is(res.status, 200, url);
  return res.json();
}

const npm = suite("npm start: synchronisation limits and baker keys");

npm("a node started with --synchronisation-threshold 2 --sync-latency 30 --baker-keys bootstrap2 runs with them", async () => {
  const node = npmStart(["--rpc-addr", "127.0.0.1:0", "--memory", "--bake", "manual", "--synchronisation-threshold", "2", "--sync-latency", "30", "--baker-keys", "bootstrap2"]);
  await using(node, async () => {
    const url = await listening(node);
    assert.equal(await json(`${url}/chains/main/is_bootstrapped`), { bootstrapped: false, sync_state: "unsynced" });
    assert.equal((await json(`${url}/config`)).shell, { chain_validator: { latency: 30, synchronisation_threshold: 2 } });
    const [hash] = await json(`${url}/sandbox/bake`, { method: "POST" });
    assert.is((await json(`${url}/chains/main/blocks/${hash}/metadata`)).baker, BOOTSTRAP2);
    assert.is((await json(`${url}/chains/main/blocks/3/metadata`)).baker, BOOTSTRAP2, "the start-up blocks too");
  });
});

npm("a bad value exits 1 with one line naming it", async () => {
  const cases: [string[], string][] = [
    [["--baker-keys", "bootstrap1,bob"], 'Invalid --baker-keys "bootstrap1,bob": Unknown baker key "bob": expected bootstrap1, bootstrap2, bootstrap3, bootstrap4, bootstrap5 or one of their tz1 addresses.\n'],
    [["--synchronisation-threshold", "-1"], 'Invalid --synchronisation-threshold "-1": expected a whole number of peers from 0 to 255.\n'],
    [["--bootstrap-threshold", "1", "--synchronisation-threshold", "1"], "--bootstrap-threshold is deprecated; use --synchronisation-threshold instead. Do not use both at the same time.\n"],
  ];
  for (const [args, message] of cases) {
    const node = npmStart(["--memory", ...args]);
    const exit = await using(node, () => within(node.exited, 60_000, `npm start ${args.join(" ")} to exit`));
    assert.is(exit.code, 1, args.join(" "));
    assert.is(exit.stderr, `${message}Run with --help to list the options.\n`);
  }
});

npm.run();
