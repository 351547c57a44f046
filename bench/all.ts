/**
 * The benches (`npm run bench`, i.e. `tsx bench/all.ts`). See `docs/bench.md`.
 *
 * Without arguments, every bench of the default run, one after the other: HTTP requests per second
 * (`http.ts`), blocks baked and validated per second (`chain.ts`), operations (`operations.ts`),
 * the Michelson interpreter and big map calls (`michelson.ts`), then the context store
 * (`context.ts`, when present), the `interval:1` baker's cadence under 1 000 readers of the head
 * (`readers.ts`, a node process, about 45 s), the P2P layer's handshakes, channel throughput and
 * proof-of-work rate under Node, Bun and Deno (`p2p.ts`, about 80 s), a node taking 1 000 blocks
 * from a peer beside its own validation of them and a block's latency over two hops (`sync.ts`,
 * about 55 s), `--help` against a bare start of each runtime (`startup.ts`, a few seconds), `createNode` and
 * `startSandbox()` from the process's chain template against a node without it (`create-node.ts`, a few
 * seconds). The load bench (`load.ts`, a node process under transfers for
 * about a minute per mode), the RPC fuzzer (`fuzz.ts`, tens of thousands of bad requests) and the
 * edge worker in workerd (`edge.ts`) are not part of the default run: ask for them by name.
 *
 * With a bench's name first, only that bench, with the rest of the command line as its arguments:
 *
 * ```sh
 * npm run bench -- load --sources 64 --seconds 20 --invalid 0,0.05   # see bench/load.ts
 * npm run bench -- readers [--connections 1000] [--seconds 20] [--runtime bun] [--path P]   # bench/readers.ts
 * npm run bench -- http [path…]
 * npm run bench -- chain [blocks]
 * npm run bench -- michelson [iterations]
 * npm run bench -- operations
 * npm run bench -- context
 * npm run bench -- disk [blocks]   # bench/disk.ts: bytes written per endorsement-only block, per table, and LMDB's growth
 * npm run bench -- p2p [--only]
 * npm run bench -- sync [blocks] [rounds]
 * npm run bench -- fuzz [--requests 50000] [--seed S] [--concurrency 4] [--only TEXT]   # bench/fuzz.ts
 * npm run bench -- startup [runs]   # bench/startup.ts: --help against a bare start of the runtime
 * npm run bench -- create-node [count] # bench/create-node.ts: the first createNode, the next ones from its template, memory per node
 * npm run bench -- history [blocks] # bench/history.ts: bytes per block and pruning pauses per history mode
 * npm run bench -- snapshot [blocks] # bench/snapshot.ts: export, import and info speed (MB/s)
 * npm run bench -- edge [requests]   # bench/edge.ts: the edge worker in workerd beside this process
 * ```
 *
 * Each bench module is imported only when it runs (the load bench's process must not hold a node).
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";

/** The benches by name: how each runs with its arguments, and whether the default run has it. */
const BENCHES: Record<string, { readonly title: string; readonly inDefaultRun: boolean; run(args: readonly string[]): Promise<unknown> }> = {
  http: {
    title: "HTTP",
    inDefaultRun: true,
    run: async (args) => (await import("./http.ts")).benchHttp(args.length === 0 ? {} : { paths: args }),
  },
  chain: {
    title: "Chain",
    inDefaultRun: true,
    run: async ([blocks]) => (await import("./chain.ts")).benchChain(blocks === undefined ? {} : { blocks: Number(blocks) }),
  },
  operations: {
    title: "Operations",
    inDefaultRun: true,
    run: async () => (await import("./operations.ts")).benchOperations(),
  },
  michelson: {
    title: "Michelson",
    inDefaultRun: true,
    run: async ([iterations]) => (await import("./michelson.ts")).benchMichelson(iterations === undefined ? undefined : Number(iterations)),
  },
  context: {
    title: "Context",
    inDefaultRun: true,
    run: async () => {
      const context = new URL("./context.ts", import.meta.url);
      if (!existsSync(context)) return console.log("(no bench/context.ts)");
      const { benchContext } = (await import(context.href)) as { benchContext(): Promise<unknown> };
      return benchContext();
    },
  },
  disk: {
    title: "Disk",
    inDefaultRun: true,
    run: async ([blocks]) => (await import("./disk.ts")).benchDisk(blocks === undefined ? {} : { blocks: Number(blocks) }),
  },
  load: {
    title: "Load",
    inDefaultRun: false,
    run: async (args) => (await import("./load.ts")).runLoadCli(args),
  },
  fuzz: {
    title: "RPC fuzz",
    inDefaultRun: false,
    run: async (args) => (await import("./fuzz.ts")).runFuzzCli(args),
  },
  readers: {
    title: "Baker cadence under readers",
    inDefaultRun: true,
    run: async (args) => (await import("./readers.ts")).runReadersCli(args),
  },
  p2p: {
    title: "P2P",
    inDefaultRun: true,
    run: async (args) => (await import("./p2p.ts")).benchP2p(args.includes("--only") ? { runtimes: [(await import("../platform/current.ts")).runtimeName()] } : {}),
  },
  sync: {
    title: "Synchronisation",
    inDefaultRun: true,
    run: async (args) => (await import("./sync.ts")).runSyncCli(args),
  },
  startup: {
    title: "Start-up (--help)",
    inDefaultRun: true,
    run: async ([runs]) => (await import("./startup.ts")).benchStartup(runs === undefined ? undefined : Number(runs)),
  },
  "create-node": {
    title: "A chain per test (createNode, startSandbox)",
    inDefaultRun: true,
    run: async ([count]) => (await import("./create-node.ts")).benchCreateNode(count === undefined ? undefined : Number(count)),
  },
  snapshot: {
    title: "Snapshots",
    inDefaultRun: false,
    run: async ([blocks]) => console.log(JSON.stringify(await (await import("./snapshot.ts")).benchSnapshot(blocks === undefined ? undefined : Number(blocks)), null, 2)),
  },
  history: {
    title: "History modes",
    inDefaultRun: false,
    run: async ([blocks]) => (await import("./history.ts")).benchHistory(blocks === undefined ? undefined : Number(blocks)),
  },
  edge: {
    title: "Edge (workerd)",
    inDefaultRun: false,
    run: async ([requests]) => (await import("./edge.ts")).benchEdge(requests === undefined ? undefined : Number(requests)),
  },
};

const [name, ...args] = process.argv.slice(2);
if (name === undefined) {
  let first = true;
  for (const bench of Object.values(BENCHES)) {
    if (!bench.inDefaultRun) continue;
    console.log(`${first ? "" : "\n"}== ${bench.title}`);
    first = false;
    await bench.run([]);
  }
  console.log("\n(The load bench is not part of this run: `npm run bench -- load [options]`, see docs/bench.md.)");
} else if (Object.hasOwn(BENCHES, name)) {
  await BENCHES[name]!.run(args);
} else {
  console.error(`Unknown bench ${JSON.stringify(name)}; one of: ${Object.keys(BENCHES).join(", ")} (none: the default run)`);
  process.exitCode = 1;
}
