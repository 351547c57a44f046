/**
 * GET /config: what platform/config-answer.ts builds from the command line and a configuration
 * file, in Octez v12's `Node_config_file.encoding` shape (fields at Octez's default left out, as
 * data-encoding's `dft`), each answer validated against `/config` in rpc-openapi.json; the service
 * in process (lib/rpc/services/config.ts: its default answer, binary refused, not in Octez's safe
 * list), and through the real command line.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../lib/node.ts";
import { SECURE } from "../../lib/rpc/acl.ts";
import { type CommandLine, parseArgs } from "../../platform/cli.ts";
import { configAnswer } from "../../platform/config-answer.ts";
import { type ConfigFile, parseConfigFile } from "../../platform/config.ts";
import { NO_P2P_CONFIG, p2pSettings } from "../../platform/p2p.ts";
import { OpenApi, type Schema } from "../support/openapi.ts";
import { kill, listening, npmStart, stop, within } from "./process.ts";

const api = OpenApi.load(new URL("../vectors/octez/rpc-openapi.json", import.meta.url));

/**
 * The file writes a tuple of two uint16 (`max_known_points`, `max_known_peer_ids`) as items that
 * are `oneOf` two identical branches, which no value can match exactly once: such a `oneOf` is
 * read here as its one branch. Nothing else of the schema changes.
 */
function collapseIdenticalOneOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(collapseIdenticalOneOf);
  if (schema === null || typeof schema !== "object") return schema;
  const s = schema as Record<string, unknown>;
  const oneOf = s["oneOf"];
  if (Array.isArray(oneOf) && oneOf.length > 1 && oneOf.every((b) => JSON.stringify(b) === JSON.stringify(oneOf[0]))) {
    const { oneOf: _, ...rest } = s;
    return collapseIdenticalOneOf({ ...rest, ...(oneOf[0] as object) });
  }
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, collapseIdenticalOneOf(v)]));
}

const SCHEMA = collapseIdenticalOneOf(api.response("/config")) as Schema;

function options(argv: string[]): CommandLine {
  const parsed = parseArgs(argv);
  if (parsed.help) throw new Error("help");
  return parsed.options;
}

/** The answer for `argv` (and a configuration file's text), validated against the OpenAPI. */
function answer(argv: string[], fileText?: string): unknown {
  const file: ConfigFile | undefined = fileText === undefined ? undefined : parseConfigFile(fileText, "c.json");
  const o = options(argv);
  // The merge platform/run.ts does for the fields this test sets.
  const merged: CommandLine = file?.dataDir !== undefined && !o.given.has("--data-dir") ? { ...o, dataDir: file.dataDir } : o;
  const value = configAnswer(merged, file, p2pSettings(merged, file?.p2p ?? NO_P2P_CONFIG, "c.json"));
  api.assertValid(value, SCHEMA, `/config for ${argv.join(" ")}`);
  return value;
}

const SANDBOX_SHELL = { chain_validator: { synchronisation_threshold: 0 } };

const t = suite("GET /config");

t("a node without P2P: its data dir and RPC address, an empty p2p section, the sandbox network", () => {
  assert.equal(answer([]), {
    "data-dir": "./tezos-node-data",
    rpc: { "listen-addrs": ["127.0.0.1:8732"] },
    p2p: {},
    shell: SANDBOX_SHELL,
    network: "sandbox",
  });
  // --memory: no data dir; IPv6 addresses bracketed; CORS and --allow-all-rpc as Octez writes them.
  assert.equal(
    answer(["--memory", "--rpc-addr", "[::1]:0", "--rpc-addr", "0.0.0.0", "--cors-origin", "*", "--cors-header", "Content-Type", "--allow-all-rpc", "0.0.0.0:8732", "--history-mode", "rolling"]),
    {
      rpc: {
        "listen-addrs": ["[::1]:0", "0.0.0.0:8732"],
        "cors-origin": ["*"],
        "cors-headers": ["Content-Type"],
        acl: [{ address: "0.0.0.0:8732", blacklist: [] }],
      },
      p2p: {},
      shell: { ...SANDBOX_SHELL, history_mode: "rolling" },
      network: "sandbox",
    },
  );
});

t("P2P as octez-node writes it: bootstrap peers always, pow and private mode when not the default, limits with the connection timeout and the peer tables", () => {
  assert.equal(answer(["--memory", "--net-addr", "127.0.0.2:19732", "--peer", "127.0.0.1:19733", "--expected-pow", "0", "--private-mode", "--connections", "3"]), {
    rpc: { "listen-addrs": ["127.0.0.1:8732"] },
    p2p: {
      "expected-proof-of-work": 0,
      "bootstrap-peers": ["127.0.0.1:19733"],
      "listen-addr": "127.0.0.2:19732",
      "private-mode": true,
      limits: {
        // Octez's default for this field is the authentication timeout (5 s), so 10 s is written.
        "connection-timeout": 10,
        "min-connections": 1,
        "expected-connections": 3,
        "max-connections": 4,
        max_known_points: [400, 300],
        max_known_peer_ids: [400, 300],
      },
    },
    shell: SANDBOX_SHELL,
    network: "sandbox",
  });
  // Default limits and pow: left out; bootstrap peers written even when none (outgoing only here).
  assert.equal((answer(["--memory", "--peer", "[::1]:9732"]) as { p2p: unknown }).p2p, { "bootstrap-peers": ["[::1]:9732"] });
  assert.equal((answer(["--memory", "--net-addr", "10.0.0.1"]) as { p2p: unknown }).p2p, { "bootstrap-peers": [], "listen-addr": "10.0.0.1:9732" });
});

t("a configuration file's settings, under the command line", () => {
  const file = JSON.stringify({
    "data-dir": "/var/tezos",
    rpc: { "listen-addrs": ["127.0.0.1:18732"], acl: [{ address: "10.0.0.1:8732", whitelist: ["GET /chains/**"] }] },
    p2p: {
      "listen-addr": "127.0.0.1:19000",
      "bootstrap-peers": ["127.0.0.1:19001"],
      "expected-proof-of-work": 20,
      limits: { "max-incoming-connections": 7, "authentication-timeout": 3, "connection-timeout": 5 },
    },
  });
  assert.equal(answer(["--expected-pow", "0", "--peer", "127.0.0.1:19002", "--allow-all-rpc", "127.0.0.5"], file), {
    "data-dir": "/var/tezos",
    rpc: {
      "listen-addrs": ["127.0.0.1:8732"], // run.ts merges rpc.listen-addrs; this test does not
      acl: [{ address: "127.0.0.5", blacklist: [] }, { address: "10.0.0.1:8732", whitelist: ["GET /chains/**"] }],
    },
    p2p: {
      "expected-proof-of-work": 0,
      "bootstrap-peers": ["127.0.0.1:19001", "127.0.0.1:19002"],
      "listen-addr": "127.0.0.1:19000",
      // connection-timeout 5 s is the field's default: left out.
      limits: { "authentication-timeout": 3, "max-incoming-connections": 7, max_known_points: [400, 300], max_known_peer_ids: [400, 300] },
    },
    shell: SANDBOX_SHELL,
    network: "sandbox",
  });
});

t("the synchronisation limits as Octez writes them: each only where it is not octez-node's default (4 peers, 150 s)", async () => {
  const shellOf = (argv: string[]) => (answer(["--memory", ...argv]) as { shell?: unknown }).shell;
  assert.equal(shellOf(["--synchronisation-threshold", "2", "--sync-latency", "30"]), { chain_validator: { latency: 30, synchronisation_threshold: 2 } });
  assert.equal(shellOf(["--bootstrap-threshold", "1"]), { chain_validator: { synchronisation_threshold: 1 } });
  assert.equal(shellOf(["--sync-latency", "150"]), SANDBOX_SHELL);
  assert.equal(shellOf(["--synchronisation-threshold", "4"]), undefined, "every shell field at Octez's default: no shell section");
  assert.equal(shellOf(["--synchronisation-threshold", "4", "--history-mode", "archive"]), { history_mode: "archive" });
  // A node created in process answers the limits it runs with.
  const node = await createNode({ bake: { mode: "manual" }, synchronisationThreshold: 3, syncLatency: 20 });
  try {
    const body = await (await node.fetch(new Request("http://node/config"))).json();
    assert.equal(body, { p2p: {}, shell: { chain_validator: { latency: 20, synchronisation_threshold: 3 } }, network: "sandbox" });
    api.assertValid(body, SCHEMA, "/config with synchronisation limits");
  } finally {
    await node.close();
  }
});

t("in process: the default answer, the value given, no binary form, not in Octez's safe list", async () => {
  const bare = await createNode({ bake: { mode: "manual" } });
  try {
    const res = await bare.fetch(new Request("http://node/config"));
    assert.is(res.status, 200);
    const body = await res.json();
    assert.equal(body, { p2p: {}, shell: SANDBOX_SHELL, network: "sandbox" });
    api.assertValid(body, SCHEMA, "the default /config");
    const binary = await bare.fetch(new Request("http://node/config", { headers: { accept: "application/octet-stream" } }));
    assert.is(binary.status, 500);
    // The error trace in binary, as asked: Octez's JSON of the failure behind its lengths.
    assert.is(binary.headers.get("content-type"), "application/octet-stream");
    const text = new TextDecoder().decode(await binary.arrayBuffer());
    assert.ok(text.includes(JSON.stringify({ kind: "temporary", id: "failure", msg: "The node's configuration has no binary form: ask for application/json" })), text);
    // Octez's secure list (a server on a public address) leaves /config out: 401, empty body.
    const refused = await bare.fetch(new Request("http://node/config"), { acl: SECURE });
    assert.equal([refused.status, await refused.text()], [401, ""]);
  } finally {
    await bare.close();
  }
  const config = { "data-dir": "/d", p2p: {}, network: "sandbox" } as const;
  const given = await createNode({ bake: { mode: "manual" }, config });
  try {
    assert.equal(await (await given.fetch(new Request("http://node/config"))).json(), config);
  } finally {
    await given.close();
  }
});

t("npm start: GET /config answers the command line over the configuration file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tezos-config-test-"));
  try {
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify({ rpc: { "cors-origin": ["http://localhost:3000"] }, p2p: { "expected-proof-of-work": 0, "private-mode": true } }));
    const node = npmStart(["--memory", "--rpc-addr", "127.0.0.1:0", "--config-file", file, "--net-addr", "127.0.0.1:0", "--bake", "manual"]);
    try {
      const url = await listening(node);
      const res = await within(fetch(`${url}/config`), 30_000, "GET /config");
      const body = await res.json();
      assert.equal(body, {
        rpc: { "listen-addrs": ["127.0.0.1:0"], "cors-origin": ["http://localhost:3000"] },
        p2p: { "expected-proof-of-work": 0, "bootstrap-peers": [], "listen-addr": "127.0.0.1:0", "private-mode": true },
        shell: SANDBOX_SHELL,
        network: "sandbox",
      });
      api.assertValid(body, SCHEMA, "GET /config");
      const exit = await stop(node);
      assert.is(exit.code, 0, exit.stderr);
    } finally {
      kill(node);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
