/**
 * The configuration file's `shell` section (Octez's `shell.history_mode` and
 * `shell.chain_validator`): read with Octez's encodings, refused with one line when wrong, and
 * taken by a node started with `--config-file` where the command line is silent.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfigFile } from "../../platform/config.ts";
import { kill, listening, npmStart, within } from "./process.ts";

const parse = (shell: unknown) => parseConfigFile(JSON.stringify({ shell }), "node.json").shell;

const unit = suite("config file: the shell section");

unit("history_mode in each of Octez's forms", () => {
  assert.equal(parse({ history_mode: "archive" }), { historyMode: { mode: "archive" } });
  assert.equal(parse({ history_mode: "rolling" }), { historyMode: { mode: "rolling" } });
  assert.equal(parse({ history_mode: { full: { additional_cycles: 3 } } }), { historyMode: { mode: "full", additionalCycles: 3 } });
  assert.equal(parse({ history_mode: { rolling: {} } }), { historyMode: { mode: "rolling" } }, "additional_cycles has a default");
  assert.equal(parseConfigFile("{}", "f").shell, {});
});

unit("chain_validator: synchronisation_threshold and latency, or the deprecated bootstrap_threshold", () => {
  assert.equal(parse({ chain_validator: { synchronisation_threshold: 2, latency: 30 } }), { synchronisationThreshold: 2, syncLatency: 30 });
  assert.equal(parse({ chain_validator: { latency: 600 } }), { syncLatency: 600 });
  assert.equal(parse({ chain_validator: { bootstrap_threshold: 4 } }), { synchronisationThreshold: 4 });
});

unit("anything else is refused, naming the field", () => {
  const refused: [unknown, RegExp][] = [
    [{ history_mode: "experimental-rolling" }, /"shell.history_mode" must be/],
    [{ history_mode: { full: { additional_cycles: -1 } } }, /"shell.history_mode" must be/],
    [{ chain_validator: { synchronisation_threshold: 256 } }, /"shell.chain_validator.synchronisation_threshold" must be an integer from 0 to 255/],
    [{ chain_validator: { latency: 70000 } }, /"shell.chain_validator.latency" must be an integer from 0 to 65535/],
    [{ chain_validator: { bootstrap_threshold: 1, latency: 5 } }, /unknown or unsupported field "shell.chain_validator.bootstrap_threshold"/],
    [{ prevalidator: { max_refused_operations: 10 } }, /unknown or unsupported field "shell.prevalidator"/],
    [[], /"shell" must be an object/],
  ];
  for (const [shell, message] of refused) assert.throws(() => parse(shell), message, JSON.stringify(shell));
});

unit.run();

const npm = suite("npm start --config-file with a shell section");

npm("the node runs with the file's history mode and synchronisation limits; the command line wins", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tezos-config-shell-"));
  try {
    const file = join(dir, "node.json");
    await writeFile(file, JSON.stringify({ shell: { history_mode: { rolling: { additional_cycles: 2 } }, chain_validator: { synchronisation_threshold: 2, latency: 30 } } }));
    const node = npmStart(["--rpc-addr", "127.0.0.1:0", "--memory", "--bake", "manual", "--config-file", file, "--sync-latency", "45"]);
    try {
      const url = await listening(node);
      const get = async (path: string) => (await within(fetch(`${url}${path}`), 30_000, path)).json();
      assert.equal(await get("/config/history_mode"), { history_mode: { rolling: { additional_cycles: 2 } } });
      assert.equal((await get("/config")).shell.chain_validator, { latency: 45, synchronisation_threshold: 2 });
      assert.equal(await get("/chains/main/is_bootstrapped"), { bootstrapped: false, sync_state: "unsynced" });
    } finally {
      kill(node);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

npm.run();
