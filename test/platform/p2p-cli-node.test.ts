/**
 * The node started with P2P as a user starts it (child processes): the identity created at first
 * start with octez-node's lines (`tezos-node run`'s `init_identity_file`) and read back at the
 * next, a bad identity file or P2P settings stopping it in one line, a taken P2P port, a warning
 * for an identity below `--expected-pow`. Two nodes that connect: p2p-cli-peers.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { type Exit, kill, listening, type NodeProcess, npmStart, start, stop, tool, within } from "./process.ts";

const SAMPLE = (JSON.parse(readFileSync(new URL("../vectors/p2p/tezedge-identity.json", import.meta.url), "utf8")) as { identity: Record<string, string> }).identity;
const RPC = ["--rpc-addr", "127.0.0.1:0", "--bake", "manual"];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "tezos-p2p-node-test-"));
}

/** Waits for a stdout line matching `line` (its groups), or fails with the output once the node exits. */
async function waitFor(node: NodeProcess, line: RegExp, ms = 120_000): Promise<RegExpExecArray> {
  const seen = new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const m = line.exec(node.output().stdout);
      if (m) resolve(m);
    };
    node.child.stdout!.on("data", check);
    check();
    node.exited.then((exit) => reject(new Error(`The node exited (${exit.code ?? exit.signal}) before printing ${line}:\n${exit.stderr}`)));
  });
  return within(seen, ms, `${line}`);
}

const P2P_LINE = /^P2P listening on (127\.0\.0\.\d+):(\d+) \(peer id (id\w+)\)$/m;

async function exitOf(node: NodeProcess): Promise<Exit> {
  try {
    return await within(node.exited, 120_000, "the node to exit");
  } finally {
    kill(node);
  }
}

function assertOneLine(exit: Exit, expected: string | RegExp): void {
  assert.is(exit.code, 1, exit.stderr);
  if (typeof expected === "string") assert.is(exit.stderr, `${expected}\n`);
  else assert.match(exit.stderr, expected);
  assert.not.match(exit.stderr, /^\s+at /m, `a stack trace on stderr:\n${exit.stderr}`);
}

const t = suite("npm start with P2P");

t("the identity is created at first start (octez-node's lines), in the data dir, and read back at the next start", async () => {
  const dir = tempDir();
  try {
    const first = npmStart(["--data-dir", dir, ...RPC, "--net-addr", "127.0.0.1:0", "--expected-pow", "0"]);
    let peerId: string;
    try {
      const [, , port, id] = await waitFor(first, P2P_LINE);
      peerId = id!;
      assert.not.equal(port, "0");
      const file = JSON.parse(readFileSync(join(dir, "identity.json"), "utf8")) as { peer_id: string };
      assert.is(file.peer_id, peerId);
      const err = first.output().stderr;
      assert.ok(err.startsWith("Generating a new identity... (level: 0.00) \n  found after 1 attempts, "), err);
      assert.ok(err.includes(`Stored the new identity (${peerId}) into '${join(dir, "identity.json")}'.\n`), err);
      const exit = await stop(first);
      assert.is(exit.code, 0, exit.stderr);
    } finally {
      kill(first);
    }
    const second = npmStart(["--data-dir", dir, ...RPC, "--net-addr", "127.0.0.1:0", "--expected-pow", "0"]);
    try {
      const [, , , id] = await waitFor(second, P2P_LINE);
      assert.is(id, peerId);
      assert.not.match(second.output().stderr, /Generating/);
      const exit = await stop(second, "SIGINT");
      assert.is(exit.code, 0, exit.stderr);
    } finally {
      kill(second);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t("a bad identity file stops the node with one line naming the field; the data dir is left usable", async () => {
  const dir = tempDir();
  try {
    const path = join(dir, "identity.json");
    writeFileSync(path, JSON.stringify({ ...SAMPLE, peer_id: "idrJYnJfKp3ANQd8nqynb2YMJCRvTv" }));
    assertOneLine(
      await exitOf(npmStart(["--data-dir", dir, ...RPC, "--net-addr", "127.0.0.1:0"])),
      `Invalid identity file \`${path}\`: "peer_id" idrJYnJfKp3ANQd8nqynb2YMJCRvTv does not match the public key (whose peer id is ${SAMPLE["peer_id"]}).`,
    );
    writeFileSync(path, JSON.stringify({ ...SAMPLE, secret_key: "zz" }));
    assertOneLine(await exitOf(npmStart(["--data-dir", dir, ...RPC, "--net-addr", "127.0.0.1:0"])), /^Invalid identity file `.*`: "secret_key" must be 32 bytes as 64 hex digits\.\n$/);
    // The data dir's lock was released: the node starts there without P2P.
    const node = npmStart(["--data-dir", dir, ...RPC]);
    try {
      await listening(node);
      assert.is((await stop(node)).code, 0);
    } finally {
      kill(node);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t("an identity below --expected-pow: a warning, and the node runs with it", async () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir, "identity.json"), JSON.stringify(SAMPLE));
    // warnings and errors only: stderr holds the identity's warning alone
    const node = npmStart(["--data-dir", dir, ...RPC, "--net-addr", "127.0.0.1:0", "--expected-pow", "8", "--log-level", "warn"]);
    try {
      const [, , , id] = await waitFor(node, P2P_LINE);
      assert.is(id, SAMPLE["peer_id"]);
      assert.is(
        node.output().stderr,
        `Warning: the identity in '${join(dir, "identity.json")}' has less proof of work than --expected-pow 8.00; peers that expect it will refuse this node.\n`,
      );
      assert.is((await stop(node)).code, 0);
    } finally {
      kill(node);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t("P2P settings that cannot run stop the node in one line", async () => {
  const cases: [string[], string][] = [
    [["--net-addr", "0.0.0.0:9732"], 'Invalid --net-addr "0.0.0.0:9732": a sandbox node listens for peers only on a loopback or private address (127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7), not on 0.0.0.0.\nRun with --help to list the options.'],
    [["--private-mode"], "Option --private-mode needs P2P: give --net-addr ADDR:PORT (or --peer ADDR:PORT)."],
    [["--connections", "101", "--net-addr", "127.0.0.1"], `Invalid --connections "101": the number of expected connections is limited to 100 (a configuration file's p2p.limits may set more).\nRun with --help to list the options.`],
  ];
  await Promise.all(cases.map(async ([argv, line]) => assertOneLine(await exitOf(npmStart(["--memory", ...RPC, ...argv])), line)));
});

t("a P2P port already taken: one line, the RPC server closed, exit 1", async () => {
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const { port } = taken.address() as { port: number };
  try {
    const node = npmStart(["--memory", ...RPC, "--net-addr", `127.0.0.1:${port}`, "--expected-pow", "0"]);
    const exit = await exitOf(node);
    assert.match(exit.stdout, /^Node listening on http:\/\/127\.0\.0\.1:\d+ \(in memory\)\n$/);
    assertOneLine(exit, new RegExp(`^Generating[^]*Cannot listen for peers on 127\\.0\\.0\\.1:${port}: .*\\n$`));
    assert.is(exit.stderr.split("\n").filter((l) => l.startsWith("Cannot")).length, 1);
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});

t.run();
