/**
 * The real command line as a subprocess: `npm start -- ...` (Node through tsx), and the Deno and
 * Bun entry points when `.ci/run` has installed those runtimes in `.tools/`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { kill, listening, type NodeProcess, npmStart, start, stop, tool, within } from "./process.ts";

const GENESIS = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";
const LOCALHOST = "127.0.0.1";

async function genesisHash(url: string): Promise<unknown> {
  const res = await within(fetch(`${url}/chains/main/blocks/genesis/hash`), 30_000, "the genesis hash");
  assert.is(res.status, 200);
  return res.json();
}

/** A port that was free a moment ago (bound to 0, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, LOCALHOST, resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "tezos-node-test-"));
}

/** Runs `body` and then kills the process if it is still running, so a failure leaks nothing. */
async function using<T>(node: NodeProcess, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    kill(node);
  }
}

/** The one line a second node on `dir` prints (the message of platform/store/lock.ts). */
function lockMessage(dir: string): RegExp {
  const d = dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^Data directory ${d} is already in use by process \\d+ \\(lock file ${d}/lock\\)\n$`);
}

function assertNoStackTrace(stderr: string): void {
  assert.not.match(stderr, /^\s+at /m, `a stack trace on stderr:\n${stderr}`);
}

const npm = suite("npm start");

npm("answers the genesis hash on the --rpc-addr port it is given, refuses a second node on that port, exits 0 on SIGTERM", async () => {
  // The port is picked free just before; another process may take it in between, so retry.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const node = npmStart(["--rpc-addr", `${LOCALHOST}:${port}`, "--memory"]);
    const served = await using(node, async () => {
      let url: string;
      try {
        url = await listening(node);
      } catch (error) {
        if (attempt < 3 && /Cannot listen/.test(String(error))) return false;
        throw error;
      }
      assert.is(url, `http://${LOCALHOST}:${port}`);
      assert.match(node.output().stdout, `Node listening on http://${LOCALHOST}:${port} (in memory)\n`);
      assert.is(await genesisHash(url), GENESIS);

      const second = npmStart(["--rpc-addr", `${LOCALHOST}:${port}`, "--memory"]);
      const refused = await using(second, () => within(second.exited, 60_000, "a second node on the same port to exit"));
      assert.is(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`^Cannot listen on ${LOCALHOST}:${port}: .+\n$`));

      const exit = await stop(node, "SIGTERM");
      assert.is(exit.code, 0, exit.stderr);
      return true;
    });
    if (served) return;
  }
});

npm("keeps one process per --data-dir: a second exits 1 with the lock message, SIGINT releases it", async () => {
  const dir = tempDir();
  try {
    const first = npmStart(["--rpc-addr", `${LOCALHOST}:0`, "--data-dir", dir]);
    await using(first, async () => {
      const url = await listening(first);
      assert.match(first.output().stdout, new RegExp(`^Node listening on http://127\\.0\\.0\\.1:\\d+ \\(data dir ${dir}\\)$`, "m"));
      assert.is(await genesisHash(url), GENESIS);

      const second = npmStart(["--rpc-addr", `${LOCALHOST}:0`, "--data-dir", dir]);
      const refused = await using(second, () => within(second.exited, 60_000, "the second node to exit"));
      assert.is(refused.code, 1);
      assert.match(refused.stderr, lockMessage(dir));
      assert.not.match(refused.stdout, /Node listening/);

      const exit = await stop(first, "SIGINT");
      assert.is(exit.code, 0, exit.stderr);
    });

    const third = npmStart(["--rpc-addr", `${LOCALHOST}:0`, "--data-dir", dir]);
    await using(third, async () => {
      assert.is(await genesisHash(await listening(third)), GENESIS);
      const exit = await stop(third, "SIGTERM");
      assert.is(exit.code, 0, exit.stderr);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

npm("exits 1 with a one-line reason and no stack trace on a bad command line", async () => {
  const cases: [string[], string][] = [
    [["--bogus"], 'Unknown option "--bogus".\nRun with --help to list the options.\n'],
    [["--history-mode", "forever"], 'Invalid --history-mode "forever": expected archive, full, full:N, rolling or rolling:N (N from 0 to 1000).\nRun with --help to list the options.\n'],
    [["--memory", "--protocol-parameters", "no-such-file.json"], 'Cannot read --protocol-parameters "no-such-file.json": no such file.\n'],
  ];
  for (const [args, message] of cases) {
    const node = npmStart(args);
    const exit = await using(node, () => within(node.exited, 60_000, `npm start ${args.join(" ")} to exit`));
    assert.is(exit.code, 1, args.join(" "));
    assert.is(exit.stderr, message);
    assert.is(exit.stdout, "");
  }
});

npm("rejects a --protocol-parameters file that is not a JSON object", async () => {
  const dir = tempDir();
  try {
    const file = join(dir, "parameters.json");
    writeFileSync(file, "[1, 2]");
    const node = npmStart(["--memory", "--protocol-parameters", file]);
    const exit = await using(node, () => within(node.exited, 60_000, "the node to exit"));
    assert.is(exit.code, 1);
    assert.is(exit.stderr, `Invalid --protocol-parameters "${file}": expected a JSON object.\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

npm("applies the RPC server limits of the command line: a URL past --max-rpc-url-length is a 414, streams past --max-rpc-streams a 503", async () => {
  const node = npmStart(["--rpc-addr", `${LOCALHOST}:0`, "--memory", "--max-rpc-url-length", "300", "--max-rpc-streams", "1"]);
  await using(node, async () => {
    const url = await listening(node);
    assert.is((await fetch(`${url}/chains/main/blocks/head/hash?x=${"a".repeat(200)}`)).status, 200);
    const long = await fetch(`${url}/chains/main/blocks/head/hash?x=${"a".repeat(400)}`);
    assert.is(long.status, 414);
    await long.body?.cancel();
    const abort = new AbortController();
    const first = await fetch(`${url}/monitor/heads/main`, { signal: abort.signal });
    assert.is(first.status, 200);
    const second = await fetch(`${url}/monitor/heads/main`);
    assert.is(second.status, 503);
    assert.equal(await second.json(), [{ kind: "temporary", id: "failure", msg: "Too many open streams" }]);
    abort.abort();
    await first.body?.cancel().catch(() => {});
    const exit = await stop(node, "SIGTERM");
    assert.is(exit.code, 0, exit.stderr);
  });
});

npm("bad options and paths: one line naming the option or path, no stack trace, exit 1", async () => {
  const dir = tempDir();
  try {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const hint = "\nRun with --help to list the options.\n";
    const cases: [string[], string][] = [
      [["-x"], `Unknown option "-x".${hint}`],
      [["--rpc-addr"], `Option --rpc-addr needs a value (HOST:PORT).${hint}`],
      [["--connections", "many", "--net-addr", "127.0.0.1"], `Invalid --connections "many": expected a whole number of connections.${hint}`],
      [["--log-level", "loud"], `Invalid --log-level "loud": expected error, warn, info or debug.${hint}`],
      [["-vv"], `Option -vv is not supported: -v already writes every log record (--log-level debug).${hint}`],
      [["--data-dir", file, "--rpc-addr", `${LOCALHOST}:0`], `The data directory ${file} is not a directory\n`],
      [["--data-dir", join(file, "below"), "--rpc-addr", `${LOCALHOST}:0`], `The data directory ${join(file, "below")} is not a directory\n`],
      // A directory where no file can be made (Linux's /proc): once this hung, then said a bare ENOENT.
      [["--data-dir", "/proc/self", "--rpc-addr", `${LOCALHOST}:0`], "The data directory /proc/self cannot hold the node's files (ENOENT: no such file or directory, open '/proc/self/lock')\n"],
    ];
    for (const [args, message] of cases) {
      const node = npmStart(args);
      const exit = await using(node, () => within(node.exited, 60_000, `npm run dev ${args.join(" ")} to exit`));
      assert.is(exit.code, 1, args.join(" "));
      assert.is(exit.stderr, message);
      assert.is(exit.stdout, "");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

npm("prints the help text with -h, before any other option is read", async () => {
  const node = npmStart(["--data-dir", "-", "-h", "--bogus"]);
  const exit = await using(node, () => within(node.exited, 60_000, "npm run dev -- -h to exit"));
  assert.is(exit.code, 0);
  assert.match(exit.stdout, /^Usage: tezos-node \[OPTIONS\]\n/);
  assert.match(exit.stdout, /  -h, --help /);
  assert.is(exit.stderr, "");
});

/** Runs the command line to its end (a command that prints and exits). */
async function finished(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const node = npmStart(args);
  return using(node, () => within(node.exited, 60_000, `npm run dev ${args.join(" ")} to exit`));
}

/** `cost_per_byte` as a node started with `args` reports it in its constants. */
async function costPerByte(args: string[]): Promise<unknown> {
  const node = npmStart(["--memory", "--rpc-addr", `${LOCALHOST}:0`, "--log-level", "warn", ...args]);
  return using(node, async () => {
    const url = await listening(node);
    const res = await within(fetch(`${url}/chains/main/blocks/head/context/constants`), 30_000, "the constants");
    const constants = (await res.json()) as Record<string, unknown>;
    const exit = await stop(node, "SIGTERM");
    assert.is(exit.code, 0, exit.stderr);
    return constants["cost_per_byte"];
  });
}

npm("--print-protocol-parameters prints a complete parameters file; edited, whole or in part, the node activates with it", async () => {
  const dir = tempDir();
  try {
    const printed = await finished(["--print-protocol-parameters"]);
    assert.is(printed.code, 0, printed.stderr);
    assert.is(printed.stderr, "");
    const defaults = JSON.parse(printed.stdout) as Record<string, unknown>;
    // Octez's sandbox-parameters.json: the bootstrap accounts, the commitments, the constants
    assert.equal(Object.keys(defaults).slice(0, 4), ["bootstrap_accounts", "commitments", "preserved_cycles", "blocks_per_cycle"]);
    assert.equal(defaults["bootstrap_accounts"], [
      ["edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "4000000000000"],
      ["edpktzNbDAUjUk697W7gYg2CRuBQjyPxbEg8dLccYYwKSKvkPvjtV9", "4000000000000"],
      ["edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", "4000000000000"],
      ["edpkuFrRoDSEbJYgxRtLx2ps82UdaYc1WwfS9sE11yhauZt5DgCHbU", "4000000000000"],
      ["edpkv8EUUH68jmo3f7Um5PezmfGrRF24gnfLpH3sVNwJnV5bVCxL2n", "4000000000000"],
    ]);
    assert.is(defaults["cost_per_byte"], "250");
    assert.is(await costPerByte([]), "250");

    const whole = join(dir, "whole.json");
    writeFileSync(whole, JSON.stringify({ ...defaults, cost_per_byte: "300" }, null, 2));
    assert.is(await costPerByte(["--protocol-parameters", whole]), "300");
    // printed back with the file: the defaults with the one change
    const reprinted = await finished(["--print-protocol-parameters", "--protocol-parameters", whole]);
    assert.equal(JSON.parse(reprinted.stdout), { ...defaults, cost_per_byte: "300" });

    const partial = join(dir, "partial.json");
    writeFileSync(partial, JSON.stringify({ cost_per_byte: "321" }));
    assert.is(await costPerByte(["--protocol-parameters", partial]), "321");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

npm("a --protocol-parameters field that is wrong is named in a one-line error", async () => {
  const dir = tempDir();
  try {
    const file = join(dir, "parameters.json");
    const accounts = [["edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "1"], ["edpktzNbDAUjUk697W7gYg2CRuBQjyPxbEg8dLccYYwKSKvkPvjtV9", "2"]];
    const cases: [unknown, string][] = [
      [{ bootstrap_accounts: [...accounts, ["edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", 3]] }, "bootstrap_accounts[2][1]: expected a mutez string (digits)."],
      [{ blocks_per_cycle: "8" }, "blocks_per_cycle: expected a whole number from -2147483648 to 2147483647."],
      [{ time_between_blocks: ["1", 0] }, "time_between_blocks[1]: expected an int64 string (digits, optionally after a minus sign)."],
      [{ cost_per_bytes: "250" }, 'unknown field "cost_per_bytes" (not a Hangzhou protocol parameter).'],
    ];
    for (const [json, why] of cases) {
      writeFileSync(file, JSON.stringify(json));
      for (const args of [["--memory", "--protocol-parameters", file], ["--print-protocol-parameters", "--protocol-parameters", file]]) {
        const exit = await finished(args);
        assert.is(exit.code, 1);
        assert.is(exit.stderr, `Invalid --protocol-parameters "${file}": ${why}\n`);
        assert.is(exit.stdout, "");
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

npm("prints the help text with --help and exits 0", async () => {
  const node = npmStart(["--help"]);
  const exit = await using(node, () => within(node.exited, 60_000, "npm start -- --help to exit"));
  assert.is(exit.code, 0);
  assert.match(exit.stdout, /^Usage: tezos-node \[OPTIONS\]\n/);
  assert.match(exit.stdout, /--rpc-addr HOST:PORT/);
});

npm.run();

for (const runtime of ["deno", "bun"] as const) {
  const binary = tool(runtime);
  const entry = `platform/${runtime}/main.ts`;
  const command = (args: string[]) => (runtime === "deno" ? ["run", "-A", entry, ...args] : [entry, ...args]);
  const other = suite(`${runtime} ${entry}`);
  if (binary === undefined) {
    console.log(`Notice: .tools/node_modules/.bin/${runtime} is absent (.ci/run installs it): the ${runtime} entry point is not tested.`);
    other.skip(`answers the genesis hash under ${runtime}`, () => {});
    other.run();
    continue;
  }

  other("answers the genesis hash with --memory and exits 0 on SIGTERM", async () => {
    const node = start(binary, command(["--rpc-addr", `${LOCALHOST}:0`, "--memory"]));
    await using(node, async () => {
      assert.is(await genesisHash(await listening(node)), GENESIS);
      const exit = await stop(node, "SIGTERM");
      assert.is(exit.code, 0, exit.stderr);
    });
  });

  other("answers the genesis hash with --data-dir, refuses a second process there, exits 0 on SIGINT", async () => {
    const dir = tempDir();
    try {
      const node = start(binary, command(["--rpc-addr", `${LOCALHOST}:0`, "--data-dir", dir]));
      await using(node, async () => {
        assert.is(await genesisHash(await listening(node)), GENESIS);
        const second = start(binary, command(["--rpc-addr", `${LOCALHOST}:0`, "--data-dir", dir]));
        const refused = await using(second, () => within(second.exited, 60_000, "the second node to exit"));
        assert.is(refused.code, 1);
        assert.match(refused.stderr, lockMessage(dir));
        const exit = await stop(node, "SIGINT");
        assert.is(exit.code, 0, exit.stderr);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  other("exits 1 with the reason on an unknown option", async () => {
    const node = start(binary, command(["--bogus"]));
    const exit = await using(node, () => within(node.exited, 60_000, "the node to exit"));
    assert.is(exit.code, 1);
    assert.match(exit.stderr, 'Unknown option "--bogus".\nRun with --help to list the options.\n');
    assertNoStackTrace(exit.stderr);
  });

  other.run();
}
