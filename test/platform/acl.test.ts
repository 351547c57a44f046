/**
 * Octez's RPC access control on a node started as a user would: a public listening address
 * (`0.0.0.0`) serves only Octez's safe list, and answers the rest 401 with an empty body; a
 * loopback one, `--allow-all-rpc` and a config file's `rpc.acl` change that as in Octez. The node
 * listens on 0.0.0.0 and the test connects through 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { kill, listening, npmStart, within } from "./process.ts";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function send(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method };
  if (body !== undefined) Object.assign(init, { headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const res = await within(fetch(`${base}${path}`, init), 30_000, `${method} ${path}`);
  return { status: res.status, text: await res.text() };
}

/** Requests a public node refuses and some it serves, with what each must answer under Octez's safe list. */
const PROBES: [string, string, unknown, boolean][] = [
  ["GET", "/chains/main/blocks/head/hash", undefined, true],
  ["GET", "/chains/main/blocks/head/context/contracts/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx/balance", undefined, true],
  ["GET", "/chains/main/mempool/pending_operations", undefined, true],
  ["GET", "/describe/version", undefined, true],
  ["GET", "/version", undefined, true],
  ["POST", "/sandbox/bake", undefined, false],
  ["POST", "/injection/block", { data: "00", operations: [] }, false],
  ["POST", "/injection/protocol", { expected_env_version: 3, components: [] }, false],
  ["POST", "/private/injection/operation", "00", false],
  ["POST", "/chains/main/mempool/filter", { minimal_fees: "999999999999" }, false],
  ["POST", "/chains/main/mempool/ban_operation", "onvsLP3JFZia2mzZKWaFuFkWg2L5p3BDUhzh5Kr6CiDDN3rtQ1D", false],
  ["GET", "/chains/main/blocks/head/helpers/baking_rights?max_priority=100", undefined, false],
  ["GET", "/stats/memory", undefined, false],
  ["GET", "/blocks/head/hash", undefined, false],
];

const acl = suite("RPC access control");

acl("on 0.0.0.0 only Octez's safe list is served: the rest answers 401 with an empty body, and changes nothing", async () => {
  const node = npmStart(["--rpc-addr", "0.0.0.0:0", "--memory", "--bake", "manual"]);
  try {
    const url = (await listening(node)).replace("0.0.0.0", "127.0.0.1");
    const before = await send(url, "GET", "/chains/main/blocks/head/header");
    for (const [method, path, body, allowed] of PROBES) {
      const r = await send(url, method, path, body);
      if (allowed) assert.is(r.status, 200, `${method} ${path}: ${r.text}`);
      else {
        assert.is(r.status, 401, `${method} ${path}`);
        assert.is(r.text, "", `${method} ${path}`);
      }
    }
    assert.equal(await send(url, "GET", "/chains/main/blocks/head/header"), before, "nothing was baked");
    assert.equal(JSON.parse((await send(url, "GET", "/protocols")).text).length, 2, "nothing was injected");
  } finally {
    kill(node);
    await node.exited;
  }
});

acl("--allow-all-rpc opens that address; a loopback address is open by default", async () => {
  const port = await freePort();
  const node = npmStart(["--rpc-addr", `0.0.0.0:${port}`, "--rpc-addr", "127.0.0.1:0", "--allow-all-rpc", `0.0.0.0:${port}`, "--memory", "--bake", "manual"]);
  try {
    await listening(node);
    const urls = () => [...node.output().stdout.matchAll(/Node listening on (http:\/\/\S+)/g)].map((m) => m[1]!.replace("0.0.0.0", "127.0.0.1"));
    await within(
      (async () => {
        while (urls().length < 2) await new Promise((r) => setTimeout(r, 50));
      })(),
      30_000,
      "both servers to listen",
    );
    const all = urls();
    assert.ok(all.includes(`http://127.0.0.1:${port}`), all.join(" "));
    for (const url of all) {
      assert.is((await send(url, "GET", "/stats/memory")).status, 200);
      assert.is((await send(url, "POST", "/sandbox/bake")).status, 200);
    }
  } finally {
    kill(node);
    await node.exited;
  }
});

acl("a config file's rpc.acl: the first entry for the address wins, a blacklist allows what it does not list", async () => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tezos-acl-"));
  const file = join(dir, "config.json");
  writeFileSync(
    file,
    JSON.stringify({
      rpc: {
        "listen-addrs": [`0.0.0.0:${port}`],
        acl: [
          { address: `0.0.0.0:${port}`, blacklist: ["POST /sandbox/**", "GET /stats/**"] },
          { address: "0.0.0.0", whitelist: ["GET /version"] },
        ],
      },
    }),
  );
  const node = npmStart(["--config-file", file, "--memory", "--bake", "manual"]);
  try {
    const url = (await listening(node)).replace("0.0.0.0", "127.0.0.1");
    assert.is(url, `http://127.0.0.1:${port}`);
    assert.is((await send(url, "POST", "/sandbox/bake")).status, 401);
    assert.is((await send(url, "GET", "/stats/gc")).status, 401);
    assert.is((await send(url, "GET", "/config/history_mode")).status, 200, "not listed: allowed");
    const pack = await send(url, "POST", "/chains/main/blocks/head/helpers/scripts/pack_data", { data: { int: "1" }, type: { prim: "int" } });
    assert.is(pack.status, 200, pack.text);
  } finally {
    kill(node);
    await node.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

acl("a bad config file is refused in one line naming the field", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tezos-acl-"));
  const file = join(dir, "config.json");
  try {
    for (const [config, message] of [
      [{ rpc: { acl: [{ address: "0.0.0.0", whitelist: ["FETCH /x"] }] } }, /^Invalid --config-file ".*": rpc\.acl\[0\]\.whitelist\[0\]: invalid method in ACL matcher "FETCH \/x"\.\n$/],
      [{ log: {} }, /^Invalid --config-file ".*": unknown or unsupported field "log" \(this node reads data-dir, rpc, p2p, shell\)\.\n$/],
    ] as [unknown, RegExp][]) {
      writeFileSync(file, JSON.stringify(config));
      const node = npmStart(["--config-file", file, "--memory"]);
      const exit = await within(node.exited, 60_000, "the node to refuse its config file");
      assert.is(exit.code, 1);
      assert.match(exit.stderr, message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

acl.run();
