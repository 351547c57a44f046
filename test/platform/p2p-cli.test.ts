/**
 * The P2P part of the command line (platform/cli.ts, platform/p2p.ts) against octez-node v12.4:
 * `--net-addr`, `--peer`, `--no-bootstrap-peers`, `--private-mode`, `--connections`,
 * `--expected-pow` (`src/bin_node/node_shared_arg.ml`), their merge with a configuration file's
 * `p2p` section (`node_config_file.ml`'s `update`) and octez-node's checks
 * (`node_config_validation.ml`), and the sandbox's rule for the listening address
 * (`node_run_command.ml`: only a private address).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type CommandLine, HELP, isSandboxAddress, parseArgs, UsageError } from "../../platform/cli.ts";
import { parseConfigFile } from "../../platform/config.ts";
import { connectionsLimits, DEFAULT_CONNECTION_LIMITS, NO_P2P_CONFIG, p2pSettings } from "../../platform/p2p.ts";

const PEER_ID = "idtqxHUjbjbCfaDn4jczoPGsnhacKX"; // tezedge's Octez-generated identity (test/vectors/p2p)

function options(argv: string[]): CommandLine {
  const parsed = parseArgs(argv);
  if (parsed.help) throw new Error("expected options, got help");
  return parsed.options;
}

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as UsageError).message;
  }
  throw new Error("no UsageError");
}

const argsError = (argv: string[]) => usageError(() => parseArgs(argv));

test("without P2P options the node runs without P2P, as before", () => {
  const o = options([]);
  assert.equal(
    { netAddr: o.netAddr, peers: o.peers, noBootstrapPeers: o.noBootstrapPeers, privateMode: o.privateMode, connections: o.connections, expectedPow: o.expectedPow },
    { netAddr: undefined, peers: [], noBootstrapPeers: false, privateMode: false, connections: undefined, expectedPow: undefined },
  );
  assert.is(p2pSettings(o, NO_P2P_CONFIG), undefined);
});

test("--net-addr, --peer (repeatable), --no-bootstrap-peers, --private-mode, --connections, --expected-pow", () => {
  const o = options([
    "--net-addr", "127.0.0.2:19732",
    "--peer", "127.0.0.1:19733",
    "--peer=[::1]:19734#" + PEER_ID,
    "--no-bootstrap-peers",
    "--private-mode",
    "--connections", "3",
    "--expected-pow=0",
  ]);
  assert.equal(o.netAddr, { host: "127.0.0.2", port: 19732 });
  assert.equal(o.peers, ["127.0.0.1:19733", `[::1]:19734#${PEER_ID}`]);
  assert.is(o.noBootstrapPeers, true);
  assert.is(o.privateMode, true);
  assert.is(o.connections, 3);
  assert.is(o.expectedPow, 0);
  assert.equal(p2pSettings(o, NO_P2P_CONFIG), {
    listen: { host: "127.0.0.2", port: 19732 },
    bootstrapPeers: ["127.0.0.1:19733", `[::1]:19734#${PEER_ID}`],
    expectedPow: 0,
    privateMode: true,
    limits: { ...DEFAULT_CONNECTION_LIMITS, minConnections: 1, expectedConnections: 3, maxConnections: 4 },
  });
});

test("addresses as octez-node reads them: port 9732 when left out, localhost, bare and bracketed IPv6, canonical forms", () => {
  assert.equal(options(["--net-addr", "127.0.0.1"]).netAddr, { host: "127.0.0.1", port: 9732 });
  assert.equal(options(["--net-addr", "localhost:0"]).netAddr, { host: "127.0.0.1", port: 0 });
  assert.equal(options(["--net-addr", "[::1]"]).netAddr, { host: "::1", port: 9732 });
  assert.equal(options(["--net-addr", "::1"]).netAddr, { host: "::1", port: 9732 });
  assert.equal(options(["--net-addr", "[FD00:0:0::7]:9000"]).netAddr, { host: "fd00::7", port: 9000 });
  assert.equal(options(["--net-addr", "[::ffff:192.168.1.2]:9000"]).netAddr, { host: "192.168.1.2", port: 9000 });
  assert.equal(options(["--peer", "10.1.2.3"]).peers, ["10.1.2.3:9732"]);
  assert.equal(options(["--peer", "localhost#" + PEER_ID]).peers, [`127.0.0.1:9732#${PEER_ID}`]);
  assert.equal(options(["--peer", "[0:0::1]:1"]).peers, ["[::1]:1"]);
  // A peer need not be private: only the listening address is the sandbox's concern.
  assert.equal(options(["--peer", "1.2.3.4:9732"]).peers, ["1.2.3.4:9732"]);
});

test("only loopback and private addresses are sandbox addresses", () => {
  const yes = ["127.0.0.1", "127.255.0.9", "::1", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "fc00::1", "fdff:ffff::1", "::ffff:10.0.0.1"];
  const no = ["0.0.0.0", "::", "1.2.3.4", "172.15.255.255", "172.32.0.0", "192.169.0.1", "11.0.0.1", "fe80::1", "2001:db8::1", "::2", "169.254.1.1", "localhost", ""];
  for (const a of yes) assert.ok(isSandboxAddress(a), a);
  for (const a of no) assert.not.ok(isSandboxAddress(a), a);
});

test("a public or unspecified --net-addr is refused in one line, as octez-node's sandbox", () => {
  for (const [text, host] of [["0.0.0.0:9732", "0.0.0.0"], ["[::]:9732", "::"], ["8.8.8.8:9732", "8.8.8.8"], ["[2001:db8::1]", "2001:db8::1"]]) {
    assert.is(
      argsError(["--net-addr", text!]),
      `Invalid --net-addr "${text}": a sandbox node listens for peers only on a loopback or private address ` +
        `(127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7), not on ${host}.`,
    );
  }
});

test("a malformed --net-addr or --peer is refused in one line", () => {
  for (const text of ["", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:http", "example.com:9732", "[::1:9732", "127.0.0.1:9732#" + PEER_ID, "256.0.0.1"]) {
    assert.is(argsError(["--net-addr", text]), `Invalid --net-addr "${text}": expected ADDR:PORT with an IP address (such as 127.0.0.1:9732 or [::1]:9732).`, text);
  }
  for (const text of ["", "127.0.0.1:0", "127.0.0.1:9732#", "127.0.0.1:9732#idNotAPeerId", "127.0.0.1:9732#" + PEER_ID.slice(0, -1), "host:1"]) {
    assert.is(
      argsError(["--peer", text]),
      `Invalid --peer "${text}": expected ADDR:PORT or ADDR:PORT#PEER_ID with an IP address, a port from 1 to 65535 and a peer id (id…).`,
      text,
    );
  }
  assert.is(argsError(["--net-addr", "127.0.0.1:1", "--net-addr", "127.0.0.1:2"]), "Option --net-addr is given more than once.");
  assert.is(argsError(["--private-mode=yes"]), "Option --private-mode takes no value.");
  assert.is(argsError(["--peer"]), "Option --peer needs a value (ADDR:PORT[#ID]).");
});

test("--connections: a whole number up to 100, as octez-node", () => {
  assert.is(options(["--connections", "0"]).connections, 0);
  assert.is(options(["--connections", "100"]).connections, 100);
  assert.is(
    argsError(["--connections", "101"]),
    'Invalid --connections "101": the number of expected connections is limited to 100 (a configuration file\'s p2p.limits may set more).',
  );
  for (const text of ["-1", "1.5", "ten", "", "1e2"]) {
    assert.is(argsError([`--connections=${text}`]), `Invalid --connections "${text}": expected a whole number of connections.`, text);
  }
});

test("--connections N sets min N/2 (1 when N is 1), expected N, max 3N/2, as node_shared_arg.ml", () => {
  const table: [number, number, number, number][] = [[0, 0, 0, 0], [1, 1, 1, 1], [2, 1, 2, 3], [3, 1, 3, 4], [7, 3, 7, 10], [10, 5, 10, 15], [50, 25, 50, 75], [100, 50, 100, 150]];
  for (const [n, min, expected, max] of table) {
    assert.equal(connectionsLimits(n), { minConnections: min, expectedConnections: expected, maxConnections: max }, String(n));
  }
});

test("--expected-pow: a number from 0 to 256, default 26", () => {
  assert.is(options(["--expected-pow", "26.5"]).expectedPow, 26.5);
  assert.is(options(["--expected-pow", "256"]).expectedPow, 256);
  assert.is(options(["--expected-pow", ".5"]).expectedPow, 0.5);
  assert.is(p2pSettings(options(["--peer", "127.0.0.1:1"]), NO_P2P_CONFIG)!.expectedPow, 26);
  for (const text of ["256.1", "-1", "nan", "inf", "", "0x10", "1,5"]) {
    assert.is(
      argsError([`--expected-pow=${text}`]),
      `Invalid --expected-pow "${text}": the expected proof-of-work must be a number between 0 and 256 (inclusive).`,
      text,
    );
  }
});

test("--peer without --net-addr: P2P connects out only", () => {
  const s = p2pSettings(options(["--peer", "127.0.0.1:19732"]), NO_P2P_CONFIG);
  assert.equal(s, { listen: undefined, bootstrapPeers: ["127.0.0.1:19732"], expectedPow: 26, privateMode: false, limits: DEFAULT_CONNECTION_LIMITS });
});

test("P2P-only options without P2P are refused rather than ignored", () => {
  for (const argv of [["--private-mode"], ["--connections", "3"], ["--expected-pow", "0"]]) {
    assert.is(usageError(() => p2pSettings(options(argv), NO_P2P_CONFIG)), `Option ${argv[0]} needs P2P: give --net-addr ADDR:PORT (or --peer ADDR:PORT).`);
  }
  // --no-bootstrap-peers only takes away: without P2P there is nothing to take.
  assert.is(p2pSettings(options(["--no-bootstrap-peers"]), NO_P2P_CONFIG), undefined);
});

test("a configuration file's p2p section, under the command line (node_config_file.ml's update)", () => {
  const file = parseConfigFile(
    JSON.stringify({
      p2p: {
        "listen-addr": "10.0.0.5:9000",
        "bootstrap-peers": ["10.0.0.6", "[fc00::1]:9001#" + PEER_ID],
        "expected-proof-of-work": 24.5,
        "private-mode": true,
        limits: { "min-connections": 2, "expected-connections": 4, "max-connections": 8, "max-incoming-connections": 5, "connection-timeout": 2.5, "authentication-timeout": 1 },
      },
    }),
    "node.json",
  ).p2p;
  assert.equal(p2pSettings(options([]), file, "node.json"), {
    listen: { host: "10.0.0.5", port: 9000 },
    bootstrapPeers: ["10.0.0.6:9732", `[fc00::1]:9001#${PEER_ID}`],
    expectedPow: 24.5,
    privateMode: true,
    limits: { minConnections: 2, expectedConnections: 4, maxConnections: 8, maxIncomingConnections: 5, connectionTimeoutMs: 2500, authenticationTimeoutMs: 1000 },
  });
  // The command line wins; --peer adds to the file's peers; --connections replaces the three bounds.
  assert.equal(p2pSettings(options(["--net-addr", "127.0.0.1:1", "--peer", "127.0.0.1:2", "--expected-pow", "0", "--connections", "10"]), file, "node.json"), {
    listen: { host: "127.0.0.1", port: 1 },
    bootstrapPeers: ["10.0.0.6:9732", `[fc00::1]:9001#${PEER_ID}`, "127.0.0.1:2"],
    expectedPow: 0,
    privateMode: true,
    limits: { minConnections: 5, expectedConnections: 10, maxConnections: 15, maxIncomingConnections: 5, connectionTimeoutMs: 2500, authenticationTimeoutMs: 1000 },
  });
  // --no-bootstrap-peers drops the file's peers, not --peer's.
  assert.equal(p2pSettings(options(["--no-bootstrap-peers", "--peer", "127.0.0.1:2"]), file, "node.json")!.bootstrapPeers, ["127.0.0.1:2"]);
  // Bootstrap peers alone turn P2P on (outgoing); --no-bootstrap-peers then turns it off.
  const peersOnly = parseConfigFile(JSON.stringify({ p2p: { "bootstrap-peers": ["127.0.0.1:3"] } }), "f").p2p;
  assert.equal(p2pSettings(options([]), peersOnly, "f")!.bootstrapPeers, ["127.0.0.1:3"]);
  assert.is(p2pSettings(options(["--no-bootstrap-peers"]), peersOnly, "f"), undefined);
});

test("connection limits that contradict each other are refused with octez-node's check, naming the fields", () => {
  const settle = (limits: object, argv: string[] = []) =>
    usageError(() => p2pSettings(options(["--net-addr", "127.0.0.1:1", ...argv]), parseConfigFile(JSON.stringify({ p2p: { limits } }), "f.json").p2p, "f.json"));
  assert.is(
    settle({ "min-connections": 60 }),
    `Invalid --config-file "f.json": the minimum number of connections found in field 'p2p.limits.min-connections' (60) is greater than the expected number of connections found in field 'p2p.limits.expected-connections' (50).`,
  );
  assert.is(
    settle({ "expected-connections": 120 }),
    `Invalid --config-file "f.json": the expected number of connections found in field 'p2p.limits.expected-connections' (120) is greater than the maximum number of connections found in field 'p2p.limits.max-connections' (100).`,
  );
  assert.is(
    settle({ "max-connections": 301 }),
    `Invalid --config-file "f.json": the maximum number of connections found in field 'p2p.limits.max-connections' (301) is greater than the 300 peers the node keeps track of (octez-node's max_known_peer_ids target).`,
  );
  // --connections replaces the file's bounds, so they are no longer checked.
  assert.equal(p2pSettings(options(["--net-addr", "127.0.0.1:1", "--connections", "4"]), parseConfigFile(JSON.stringify({ p2p: { limits: { "min-connections": 60 } } }), "f").p2p, "f")!.limits.minConnections, 2);
});

test("bad p2p fields in a configuration file are refused in one line naming the field", () => {
  const refused = (p2p: unknown) => usageError(() => parseConfigFile(JSON.stringify({ p2p }), "c.json"));
  const cases: [unknown, string][] = [
    [[], `"p2p" must be an object`],
    [{ "advertised-net-port": 1 }, `unknown or unsupported field "p2p.advertised-net-port" (this node reads p2p.listen-addr, p2p.bootstrap-peers, p2p.expected-proof-of-work, p2p.private-mode, p2p.limits)`],
    [{ "listen-addr": 9732 }, `"p2p.listen-addr" must be a string`],
    [{ "listen-addr": "0.0.0.0:9732" }, `p2p.listen-addr "0.0.0.0:9732": a sandbox node listens for peers only on a loopback or private address (127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7), not on 0.0.0.0`],
    [{ "listen-addr": "here" }, `p2p.listen-addr "here": expected ADDR:PORT with an IP address (such as 127.0.0.1:9732 or [::1]:9732)`],
    [{ "bootstrap-peers": "127.0.0.1:1" }, `"p2p.bootstrap-peers" must be a list of strings`],
    [{ "bootstrap-peers": ["127.0.0.1:1", "x"] }, `p2p.bootstrap-peers[1] "x": expected ADDR:PORT or ADDR:PORT#PEER_ID with an IP address, a port from 1 to 65535 and a peer id (id…)`],
    [{ "expected-proof-of-work": "26" }, `"p2p.expected-proof-of-work" must be a number`],
    [{ "expected-proof-of-work": 300 }, `p2p.expected-proof-of-work "300": the expected proof-of-work must be a number between 0 and 256 (inclusive)`],
    [{ "private-mode": "yes" }, `"p2p.private-mode" must be true or false`],
    [{ limits: 3 }, `"p2p.limits" must be an object`],
    [{ limits: { backlog: 3 } }, `unknown or unsupported field "p2p.limits.backlog" (this node reads p2p.limits.min-connections, p2p.limits.expected-connections, p2p.limits.max-connections, p2p.limits.max-incoming-connections, p2p.limits.connection-timeout, p2p.limits.authentication-timeout)`],
    [{ limits: { "max-connections": 65536 } }, `"p2p.limits.max-connections" must be a whole number from 0 to 65535`],
    [{ limits: { "min-connections": 1.5 } }, `"p2p.limits.min-connections" must be a whole number from 0 to 65535`],
    [{ limits: { "max-incoming-connections": 256 } }, `"p2p.limits.max-incoming-connections" must be a whole number from 0 to 255`],
    [{ limits: { "connection-timeout": 0 } }, `"p2p.limits.connection-timeout" must be a number of seconds, more than 0 and at most 86400`],
  ];
  for (const [p2p, why] of cases) assert.is(refused(p2p), `Invalid --config-file "c.json": ${why}.`, JSON.stringify(p2p));
});

test("the help text lists the P2P options and the identity commands", () => {
  for (const flag of ["--net-addr", "--peer", "--no-bootstrap-peers", "--private-mode", "--connections", "--expected-pow"]) assert.ok(HELP.includes(`  ${flag} `), flag);
  for (const op of ["identity generate", "identity show", "identity check"]) assert.ok(HELP.includes(`  ${op}`), op);
});

test.run();
