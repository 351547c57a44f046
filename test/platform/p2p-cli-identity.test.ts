/**
 * `identity generate | show | check` run as a user runs them (a child process of each runtime's
 * entry point, `--data-dir` a fresh directory), against octez-node v12.4
 * (`src/bin_node/node_identity_command.ml`, `node_identity_file.ml`): its lines, exit codes and
 * refusals, and the file's format against tezedge's Octez-generated identity.json
 * (test/vectors/p2p/tezedge-identity.json).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { checkProofOfWork, identityToJson, parseIdentityJson, powTarget } from "../../lib/p2p/identity.ts";
import { type Exit, kill, start, tool, within } from "./process.ts";

const vectors = JSON.parse(readFileSync(new URL("../vectors/p2p/tezedge-identity.json", import.meta.url), "utf8")) as {
  identity: { peer_id: string; public_key: string; secret_key: string; proof_of_work_stamp: string };
};
const SAMPLE = vectors.identity;

/** How each runtime runs the node's entry point. */
const RUNTIMES: [name: string, command: string | undefined, args: (rest: string[]) => string[]][] = [
  ["node", "npx", (rest) => ["tsx", "platform/node/main.ts", ...rest]],
  ["bun", tool("bun"), (rest) => ["platform/bun/main.ts", ...rest]],
  ["deno", tool("deno"), (rest) => ["run", "-A", "platform/deno/main.ts", ...rest]],
];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "tezos-identity-test-"));
}

function assertNoStackTrace(stderr: string): void {
  assert.not.match(stderr, /^\s+at /m, `a stack trace on stderr:\n${stderr}`);
}

for (const [runtime, command, args] of RUNTIMES) {
  const t = suite(`identity (${runtime})`);
  if (command === undefined) {
    console.log(`Notice: .tools/node_modules/.bin/${runtime} is absent (.ci/run installs it): identity under ${runtime} is not tested.`);
    t.skip("identity generate, show, check", () => {});
    t.run();
    continue;
  }

  /** Runs `identity ...rest` to its end. */
  const identity = async (...rest: string[]): Promise<Exit> => {
    const child = start(command, args(["identity", ...rest]));
    try {
      return await within(child.exited, 120_000, `identity ${rest.join(" ")}`);
    } finally {
      kill(child);
    }
  };

  t("generate 0 writes <data-dir>/identity.json in Octez's format, prints its peer id; show and check read it", async () => {
    const dir = tempDir();
    try {
      const dataDir = join(dir, "not", "yet"); // created as octez-node creates it
      const gen = await identity("generate", "0", "--data-dir", dataDir);
      assert.is(gen.code, 0, gen.stderr);
      assert.is(gen.stdout, "");
      const path = join(dataDir, "identity.json");
      const text = readFileSync(path, "utf8");
      const file = JSON.parse(text) as Record<string, string>;
      // The same fields, in the same order, as the identity.json Octez wrote (tezedge's sample).
      assert.equal(Object.keys(file), Object.keys(SAMPLE));
      assert.match(file["peer_id"]!, /^id[1-9A-HJ-NP-Za-km-z]{28}$/);
      assert.match(file["public_key"]!, /^[0-9a-f]{64}$/);
      assert.match(file["secret_key"]!, /^[0-9a-f]{64}$/);
      assert.match(file["proof_of_work_stamp"]!, /^[0-9a-f]{48}$/);
      // Laid out as data-encoding writes it (lib/p2p/identity.ts's identityToJson), every field consistent.
      assert.is(text, identityToJson(parseIdentityJson(text)));
      assert.is(statSync(path).mode & 0o777, 0o600);
      const peerId = file["peer_id"]!;
      // Difficulty 0: the first stamp tried passes.
      assert.is(
        gen.stderr.replace(/, \d+ per second/, ", R per second"),
        `Generating a new identity... (level: 0.00) \n  found after 1 attempts, R per second.\nStored the new identity (${peerId}) into '${path}'.\n`,
      );

      const show = await identity("show", "--data-dir", dataDir);
      assert.equal([show.code, show.stdout, show.stderr], [0, `Peer_id: ${peerId}.\n`, ""]);
      const check = await identity("check", "0", `--data-dir=${dataDir}`);
      assert.equal([check.code, check.stdout, check.stderr], [0, `Peer_id: ${peerId}. Proof of work is higher than 0.00.\n`, ""]);
      // `show` is the default operation, as octez-node's.
      const bare = await identity("--data-dir", dataDir);
      assert.equal([bare.code, bare.stdout], [0, `Peer_id: ${peerId}.\n`]);

      // Never over an existing file: the file is unchanged.
      const again = await identity("generate", "0", "--data-dir", dataDir);
      assert.is(again.code, 1);
      assert.is(
        again.stderr,
        `Cannot implicitly overwrite the current identity file: '${path}'. See \`tezos-node identity --help\` on how to generate a new identity.\n`,
      );
      assert.is(readFileSync(path, "utf8"), text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  t("generate 8 meets difficulty 8 and reports its attempts and rate", async () => {
    const dir = tempDir();
    try {
      const gen = await identity("generate", "8", "--data-dir", dir);
      assert.is(gen.code, 0, gen.stderr);
      assert.match(gen.stderr, /^Generating a new identity\.\.\. \(level: 8\.00\) \n  found after \d+ attempts, \d+ per second\.\nStored the new identity \(id\w+\) into '.*'\.\n$/);
      const id = parseIdentityJson(readFileSync(join(dir, "identity.json"), "utf8"));
      assert.ok(checkProofOfWork(id.publicKey, id.proofOfWorkStamp, powTarget(8)));
      const check = await identity("check", "8", "--data-dir", dir);
      assert.equal([check.code, check.stdout], [0, `Peer_id: ${id.peerId}. Proof of work is higher than 8.00.\n`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  t("show and check read Octez's identity.json; check refuses a stamp below the difficulty with Octez's message", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir, "identity.json"), JSON.stringify(SAMPLE, null, 2));
      const show = await identity("show", "--data-dir", dir);
      assert.equal([show.code, show.stdout], [0, `Peer_id: ${SAMPLE.peer_id}.\n`]);
      // Its stamp meets difficulty 0 only; check's default difficulty is 26, as octez-node's.
      const check = await identity("check", "--data-dir", dir);
      assert.equal([check.code, check.stdout], [1, ""]);
      assert.is(
        check.stderr,
        "The current identity does not embed a sufficient stamp of proof-of-work. (expected level: 26.00). See `tezos-node identity --help` on how to generate a new identity.\n",
      );
      // A configuration file's p2p.expected-proof-of-work is the difficulty when none is given.
      const config = join(dir, "config.json");
      writeFileSync(config, JSON.stringify({ "data-dir": dir, p2p: { "expected-proof-of-work": 0 } }));
      const byConfig = await identity("check", "--config-file", config);
      assert.equal([byConfig.code, byConfig.stdout], [0, `Peer_id: ${SAMPLE.peer_id}. Proof of work is higher than 0.00.\n`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  t("a missing or invalid identity file: one line naming the file and the field, exit 1", async () => {
    const dir = tempDir();
    try {
      const missing = await identity("show", "--data-dir", dir);
      assert.is(missing.code, 1);
      assert.is(
        missing.stderr,
        `Cannot read the identity file: \`${join(dir, "identity.json")}\`. See \`tezos-node identity --help\` on how to generate an identity.\n`,
      );
      const otherKey = "b".repeat(64);
      const cases: [string, RegExp][] = [
        ["{", /: the file is not JSON: /],
        [JSON.stringify({ ...SAMPLE, secret_key: undefined }), /: missing field "secret_key"\.\n$/],
        [JSON.stringify({ ...SAMPLE, extra: 1 }), /: unexpected field "extra"\.\n$/],
        [JSON.stringify({ ...SAMPLE, public_key: otherKey }), /: "peer_id" idtqxHUjbjbCfaDn4jczoPGsnhacKX does not match the public key \(whose peer id is id\w+\)\.\n$/],
        [JSON.stringify({ ...SAMPLE, peer_id: undefined, public_key: otherKey }), /: "secret_key" does not match "public_key" \(secret key\/public key pair is not valid\)\.\n$/],
        [JSON.stringify({ ...SAMPLE, proof_of_work_stamp: "00" }), /: "proof_of_work_stamp" must be 24 bytes as 48 hex digits\.\n$/],
      ];
      for (const [text, why] of cases) {
        writeFileSync(join(dir, "identity.json"), text);
        const exit = await identity("check", "0", "--data-dir", dir);
        assert.is(exit.code, 1, text);
        assert.ok(exit.stderr.startsWith(`Invalid identity file \`${join(dir, "identity.json")}\`: `), exit.stderr);
        assert.match(exit.stderr, why);
        assert.is(exit.stderr.split("\n").length, 2, exit.stderr);
        assertNoStackTrace(exit.stderr);
      }
      // A directory where the file should be.
      rmSync(join(dir, "identity.json"));
      mkdirSync(join(dir, "identity.json"));
      const isDir = await identity("show", "--data-dir", dir);
      assert.is(isDir.code, 1);
      assert.match(isDir.stderr, /^Cannot read the identity file `.*identity\.json`: .*\.\n$/);
      const overDir = await identity("generate", "0", "--data-dir", dir);
      assert.is(overDir.code, 1);
      assert.match(overDir.stderr, /^Cannot implicitly overwrite the current identity file: '/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  t("a bad identity command line: one line, exit 1", async () => {
    const cases: [string[], string][] = [
      [["generate", "257"], 'Invalid DIFFICULTY "257": the expected proof-of-work must be a number between 0 and 256 (inclusive).'],
      [["check", "-1"], 'Invalid DIFFICULTY "-1": the expected proof-of-work must be a number between 0 and 256 (inclusive).'],
      [["show", "3"], 'identity show takes no DIFFICULTY (got "3").'],
      [["rotate"], 'Invalid identity operation "rotate": expected show, generate or check.'],
      [["generate", "1", "2"], 'Unexpected argument "2".'],
      [["show", "--memory"], 'Unknown option "--memory" for identity.'],
      [["show", "--data-dir"], "Option --data-dir needs a value (DIR)."],
    ];
    await Promise.all(
      cases.map(async ([argv, message]) => {
        const exit = await identity(...argv);
        assert.is(exit.code, 1, argv.join(" "));
        assert.is(exit.stderr, `${message}\nRun with identity --help to list the options.\n`);
      }),
    );
    const help = await identity("--help");
    assert.is(help.code, 0);
    assert.match(help.stdout, /^Usage: tezos-node identity /);
  });

  t.run();
}
