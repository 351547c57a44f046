import { test } from "uvu";
import * as assert from "uvu/assert";
import { HELP, parseArgs, UsageError } from "../../platform/cli.ts";

function options(argv: string[]) {
  const parsed = parseArgs(argv);
  if (parsed.help) throw new Error("expected options, got help");
  return parsed.options;
}

function usageError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as UsageError).message;
  }
  throw new Error(`parseArgs(${JSON.stringify(argv)}) did not throw`);
}

test("parseArgs() with no argument gives octez-node's defaults", () => {
  assert.equal(options([]), {
    rpcAddrs: [{ hostname: "127.0.0.1", port: 8732 }],
    allowAllRpc: [],
    configFile: undefined,
    dataDir: "./tezos-node-data",
    bake: { mode: "auto" },
    bakerKeys: undefined,
    activate: true,
    historyMode: undefined, // the data directory's own (full for a new one)
    forceHistoryModeSwitch: false,
    cors: { origins: [], headers: [] },
    protocolParameters: undefined,
    maxRequestBody: undefined,
    rpcWorkBudget: undefined,
    serveLimits: {},
    netAddr: undefined,
    peers: [],
    noBootstrapPeers: false,
    privateMode: false,
    connections: undefined,
    expectedPow: undefined,
    synchronisationThreshold: undefined,
    syncLatency: undefined,
    logLevel: "info",
    logFormat: "text",
    printProtocolParameters: false,
    loadState: undefined,
    dumpState: undefined,
    given: new Set(),
  });
});

test("parseArgs() reads every option, repeatable ones in order", () => {
  assert.equal(
    options([
      "--rpc-addr", "0.0.0.0:18732",
      "--data-dir", "/var/lib/tezos",
      "--bake", "interval:2.5",
      "--no-activate",
      "--history-mode", "archive",
      "--cors-origin", "http://localhost:3000",
      "--cors-origin", "*",
      "--cors-header", "Content-Type",
      "--cors-header", "X-Custom",
      "--protocol-parameters", "sandbox-parameters.json",
      "--rpc-addr", "[::1]:18733",
      "--allow-all-rpc", "0.0.0.0:18732",
      "--allow-all-rpc", "10.0.0.1",
      "--config-file", "node.json",
      "--max-request-body", "1024",
      "--rpc-work-budget", "2.5",
      "--max-active-rpc-connections", "2000",
      "--max-rpc-streams", "10",
      "--rpc-headers-timeout", "2.5",
      "--rpc-idle-timeout", "0",
      "--max-rpc-url-length", "4096",
    ]),
    {
      rpcAddrs: [{ hostname: "0.0.0.0", port: 18732 }, { hostname: "::1", port: 18733 }],
      allowAllRpc: [{ address: "0.0.0.0", port: 18732 }, { address: "10.0.0.1", port: undefined }],
      configFile: "node.json",
      dataDir: "/var/lib/tezos",
      bake: { mode: "interval", seconds: 2.5 },
      bakerKeys: undefined,
      activate: false,
      historyMode: { mode: "archive" },
      forceHistoryModeSwitch: false,
      cors: { origins: ["http://localhost:3000", "*"], headers: ["Content-Type", "X-Custom"] },
      protocolParameters: "sandbox-parameters.json",
      maxRequestBody: 1024,
      rpcWorkBudget: 2500,
      serveLimits: { maxConnections: 2000, maxStreams: 10, headersTimeout: 2500, idleTimeout: 0, maxUrlLength: 4096 },
      netAddr: undefined,
      peers: [],
      noBootstrapPeers: false,
      privateMode: false,
      connections: undefined,
      expectedPow: undefined,
      synchronisationThreshold: undefined,
      syncLatency: undefined,
      logLevel: "info",
      logFormat: "text",
      printProtocolParameters: false,
      loadState: undefined,
      dumpState: undefined,
      given: new Set(["--rpc-work-budget", "--rpc-addr", "--data-dir", "--bake", "--no-activate", "--history-mode", "--cors-origin", "--cors-header", "--protocol-parameters", "--allow-all-rpc", "--config-file", "--max-request-body", "--max-active-rpc-connections", "--max-rpc-streams", "--rpc-headers-timeout", "--rpc-idle-timeout", "--max-rpc-url-length"]),
    },
  );
});

test("parseArgs() accepts --flag=value as well as --flag value", () => {
  const o = options(["--rpc-addr=localhost:9000", "--history-mode=rolling", "--bake=manual", "--cors-origin=*"]);
  assert.equal(o.rpcAddrs, [{ hostname: "localhost", port: 9000 }]);
  assert.equal(o.historyMode, { mode: "rolling" });
  assert.equal(options(["--history-mode", "full:3", "--force-history-mode-switch"]).historyMode, { mode: "full", additionalCycles: 3 });
  assert.is(options(["--history-mode", "full:3", "--force-history-mode-switch"]).forceHistoryModeSwitch, true);
  assert.throws(() => parseArgs(["--force-history-mode-switch"]), /^Option --force-history-mode-switch needs --history-mode: the mode to switch to\.$/);
  assert.equal(o.bake, { mode: "manual" });
  assert.equal(o.cors.origins, ["*"]);
});

test("parseArgs() reads --rpc-addr forms: bracketed IPv6, no port, port 0", () => {
  assert.equal(options(["--rpc-addr", "[::1]:8733"]).rpcAddrs, [{ hostname: "::1", port: 8733 }]);
  assert.equal(options(["--rpc-addr", "[::]"]).rpcAddrs, [{ hostname: "::", port: 8732 }]);
  assert.equal(options(["--rpc-addr", "localhost"]).rpcAddrs, [{ hostname: "localhost", port: 8732 }]);
  assert.equal(options(["--rpc-addr", "127.0.0.1:0"]).rpcAddrs, [{ hostname: "127.0.0.1", port: 0 }]);
  assert.equal(options(["--rpc-addr", "127.0.0.1:65535"]).rpcAddrs, [{ hostname: "127.0.0.1", port: 65535 }]);
});

test("parseArgs() with --memory has no data directory", () => {
  assert.is(options(["--memory"]).dataDir, undefined);
});

test("parseArgs() answers help for --help or -h wherever it stands, even before a bad option", () => {
  assert.equal(parseArgs(["--help"]), { help: true });
  assert.equal(parseArgs(["-h"]), { help: true });
  assert.equal(parseArgs(["--memory", "--help", "--bogus"]), { help: true });
  assert.equal(parseArgs(["--data-dir", "d", "-h", "--bogus"]), { help: true });
});

test("parseArgs() reads the log options: --log-level, -v (debug), --log-format", () => {
  assert.is(options(["--log-level", "warn"]).logLevel, "warn");
  assert.is(options(["--log-level=error"]).logLevel, "error");
  assert.is(options(["-v"]).logLevel, "debug");
  assert.is(options(["--log-format", "json"]).logFormat, "json");
  assert.is(options(["--log-format=text", "-v"]).logFormat, "text");
  assert.is(usageError(["--log-level", "verbose"]), 'Invalid --log-level "verbose": expected error, warn, info or debug.');
  assert.is(usageError(["--log-level", "INFO"]), 'Invalid --log-level "INFO": expected error, warn, info or debug.');
  assert.is(usageError(["--log-format", "xml"]), 'Invalid --log-format "xml": expected text or json.');
  assert.is(usageError(["--log-level"]), "Option --log-level needs a value (LEVEL).");
  assert.is(usageError(["--log-level", "-v"]), "Option --log-level needs a value (LEVEL).");
  assert.is(usageError(["-v", "--log-level", "info"]), "Options -v and --log-level cannot be used together.");
  assert.is(usageError(["-v", "-v"]), "Option -v is given more than once.");
  assert.is(usageError(["-v=1"]), 'Unknown option "-v=1".');
  for (const flag of ["-vv", "-vvv"]) {
    assert.is(usageError([flag]), `Option ${flag} is not supported: -v already writes every log record (--log-level debug).`);
  }
});

test("parseArgs() reads --print-protocol-parameters, alone or with a file", () => {
  assert.is(options(["--print-protocol-parameters"]).printProtocolParameters, true);
  const o = options(["--print-protocol-parameters", "--protocol-parameters", "p.json"]);
  assert.equal([o.printProtocolParameters, o.protocolParameters], [true, "p.json"]);
  assert.is(usageError(["--print-protocol-parameters=yes"]), "Option --print-protocol-parameters takes no value.");
});

test("a negative number is still read as a value (and refused for what it is)", () => {
  assert.is(usageError(["--max-rpc-streams", "-1"]), 'Invalid --max-rpc-streams "-1": expected a whole number from 1 to 1000000.');
});

test("the help text lists every option", () => {
  for (const flag of [
    "--rpc-addr", "--data-dir", "--memory", "--history-mode", "--bake", "--no-activate",
    "--protocol-parameters", "--cors-origin", "--cors-header",
    "--baker-keys", "--synchronisation-threshold", "--bootstrap-threshold", "--sync-latency",
    "--log-level", "-v", "--log-format", "--print-protocol-parameters", "-h, --help",
  ]) {
    assert.ok(HELP.includes(`  ${flag}`), flag);
  }
});

test("parseArgs() rejects an unknown option or a stray argument", () => {
  assert.is(usageError(["--bogus"]), 'Unknown option "--bogus".');
  assert.is(usageError(["--rpc-port=1"]), 'Unknown option "--rpc-port".');
  assert.is(usageError(["-x"]), 'Unknown option "-x".');
  assert.is(usageError(["-help"]), 'Unknown option "-help".');
  assert.is(usageError(["run"]), 'Unexpected argument "run".');
});

test("parseArgs() rejects bad server limits", () => {
  assert.is(usageError(["--max-active-rpc-connections", "0"]), 'Invalid --max-active-rpc-connections "0": expected a whole number from 1 to 1000000.');
  assert.is(usageError(["--max-rpc-streams", "-1"]), 'Invalid --max-rpc-streams "-1": expected a whole number from 1 to 1000000.');
  assert.is(usageError(["--rpc-idle-timeout", "1e3"]), 'Invalid --rpc-idle-timeout "1e3": expected seconds from 0 (none) to 86400.');
  assert.is(usageError(["--rpc-headers-timeout", "86401"]), 'Invalid --rpc-headers-timeout "86401": expected seconds from 0 (none) to 86400.');
  assert.is(usageError(["--max-rpc-url-length", "100"]), 'Invalid --max-rpc-url-length "100": expected a number of bytes from 256 to 1048576.');
});

test("parseArgs() rejects a missing value", () => {
  assert.is(usageError(["--rpc-addr"]), "Option --rpc-addr needs a value (HOST:PORT).");
  assert.is(usageError(["--data-dir", "--memory"]), "Option --data-dir needs a value (DIR).");
  assert.is(usageError(["--cors-origin"]), "Option --cors-origin needs a value (ORIGIN).");
});

test("parseArgs() rejects a bad --rpc-addr", () => {
  const expected = (text: string) => `Invalid --rpc-addr "${text}": expected HOST:PORT with a port from 0 to 65535.`;
  for (const text of ["127.0.0.1:65536", "127.0.0.1:http", ":8732", "127.0.0.1:", "::1", "[::1]:-1", "my host:1", ""]) {
    assert.is(usageError(["--rpc-addr", text]), expected(text), text);
  }
});

test("parseArgs() rejects a bad --history-mode or --bake", () => {
  assert.is(usageError(["--history-mode", "experimental"]), 'Invalid --history-mode "experimental": expected archive, full, full:N, rolling or rolling:N (N from 0 to 1000).');
  assert.is(usageError(["--history-mode", "full:x"]), 'Invalid --history-mode "full:x": expected archive, full, full:N, rolling or rolling:N (N from 0 to 1000).');
  for (const text of ["interval:0", "interval:-1", "interval:", "interval:1s", "sometimes", "interval"]) {
    assert.is(
      usageError(["--bake", text]),
      `Invalid --bake "${text}": expected auto, manual or interval:<seconds> (seconds > 0).`,
      text,
    );
  }
});

test("parseArgs() rejects conflicting, repeated or valued switches and empty values", () => {
  assert.is(usageError(["--memory", "--data-dir", "d"]), "Options --memory and --data-dir cannot be used together.");
  assert.is(usageError(["--data-dir", "a", "--data-dir", "b"]), "Option --data-dir is given more than once.");
  assert.is(usageError(["--memory=yes"]), "Option --memory takes no value.");
  assert.is(usageError(["--no-activate=true"]), "Option --no-activate takes no value.");
  assert.is(usageError(["--data-dir="]), 'Invalid --data-dir "": expected a directory path.');
  assert.is(usageError(["--protocol-parameters="]), 'Invalid --protocol-parameters "": expected a file path.');
  assert.is(usageError(["--cors-header="]), 'Invalid --cors-header "": expected a non-empty value.');
});

test("parseArgs() reads --baker-keys: bootstrap account names or their tz1 addresses, comma-separated", () => {
  assert.equal(options(["--baker-keys", "bootstrap2"]).bakerKeys, ["bootstrap2"]);
  assert.equal(options(["--baker-keys=bootstrap1,tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU"]).bakerKeys, ["bootstrap1", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU"]);
  assert.equal(options(["--baker-keys", "bootstrap4, bootstrap5"]).bakerKeys, ["bootstrap4", "bootstrap5"]);
  assert.is(options([]).bakerKeys, undefined, "all five when absent");
  assert.is(
    usageError(["--baker-keys", "bootstrap1,bootstrap9"]),
    'Invalid --baker-keys "bootstrap1,bootstrap9": Unknown baker key "bootstrap9": expected bootstrap1, bootstrap2, bootstrap3, bootstrap4, bootstrap5 or one of their tz1 addresses.',
  );
  assert.is(
    usageError(["--baker-keys", "tz1burnburnburnburnburnburnburjAYjjX"]),
    'Invalid --baker-keys "tz1burnburnburnburnburnburnburjAYjjX": Unknown baker key "tz1burnburnburnburnburnburnburjAYjjX": expected bootstrap1, bootstrap2, bootstrap3, bootstrap4, bootstrap5 or one of their tz1 addresses.',
  );
  for (const text of ["", ",", "bootstrap1,", ",bootstrap1", "bootstrap1,,bootstrap2"]) {
    assert.is(usageError([`--baker-keys=${text}`]), `Invalid --baker-keys "${text}": expected comma-separated accounts (bootstrap1 ... bootstrap5 or their tz1 addresses).`, text);
  }
  assert.is(usageError(["--baker-keys", "bootstrap1", "--baker-keys", "bootstrap2"]), "Option --baker-keys is given more than once.");
});

test("parseArgs() reads --synchronisation-threshold (or octez-node's deprecated --bootstrap-threshold) and --sync-latency", () => {
  const o = options(["--synchronisation-threshold", "2", "--sync-latency", "30"]);
  assert.equal([o.synchronisationThreshold, o.syncLatency], [2, 30]);
  assert.equal(options(["--bootstrap-threshold=3"]).synchronisationThreshold, 3);
  assert.equal(options(["--synchronisation-threshold=0", "--sync-latency=0"]).synchronisationThreshold, 0);
  assert.equal(options(["--synchronisation-threshold=255", "--sync-latency=65535"]).syncLatency, 65535);
  assert.is(
    usageError(["--bootstrap-threshold", "1", "--synchronisation-threshold", "2"]),
    "--bootstrap-threshold is deprecated; use --synchronisation-threshold instead. Do not use both at the same time.",
  );
  for (const text of ["-1", "256", "1.5", "two", "", "0x10", "1e2"]) {
    assert.is(usageError([`--synchronisation-threshold=${text}`]), `Invalid --synchronisation-threshold "${text}": expected a whole number of peers from 0 to 255.`, text);
  }
  assert.is(usageError(["--bootstrap-threshold", "300"]), 'Invalid --bootstrap-threshold "300": expected a whole number of peers from 0 to 255.');
  for (const text of ["-1", "65536", "2.5", "1000000"]) {
    assert.is(usageError([`--sync-latency=${text}`]), `Invalid --sync-latency "${text}": expected a whole number of seconds from 0 to 65535.`, text);
  }
  assert.is(usageError(["--sync-latency"]), "Option --sync-latency needs a value (SECONDS).");
});

test("parseArgs() reads --load-state FILE and --dump-state FILE (the same file may be both, as Anvil's --state)", () => {
  const parsed = parseArgs(["--memory", "--load-state", "a.state", "--dump-state=a.state"]);
  assert.ok(!parsed.help);
  if (parsed.help) return;
  assert.equal([parsed.options.loadState, parsed.options.dumpState], ["a.state", "a.state"]);
  assert.is(usageError(["--load-state"]), "Option --load-state needs a value (FILE).");
  assert.is(usageError(["--dump-state="]), 'Invalid --dump-state "": expected a non-empty value.');
  assert.is(usageError(["--dump-state", "a", "--dump-state", "b"]), "Option --dump-state is given more than once.");
});

test.run();
