/**
 * How long `--help` takes, as a ratio to the runtime starting with nothing to run: the entry reads
 * the command line with `platform/cli.ts` alone and loads the node only after it (issue 14), so
 * the help costs little more than the runtime's own start. Measured: `node -e 0`, the compiled
 * entry `node dist/platform/node/main.js --help` (when `npm run build` has made it; a dist/ older
 * than the sources is measured all the same, and said so), the sources through tsx
 * (`node --import tsx platform/node/main.ts --help`, what `npm run dev` runs), and, when `.tools/`
 * has them, Bun (`bun -e 0` against `bun platform/bun/main.ts --help`) and Deno (`deno eval 0`
 * against `deno run -A platform/deno/main.ts --help`). Each the median of `runs` runs (15 by
 * default), one at a time.
 *
 * ```sh
 * npm run bench -- startup [runs]
 * ```
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import process from "node:process";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Median wall time, in milliseconds, of `runs` runs of `command args` (each must exit 0). */
function median(command: string, args: readonly string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const run = spawnSync(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    times.push(performance.now() - started);
    if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${run.status}: ${run.stderr.toString()}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** One line: what, its median time, and its ratio to the bare start. */
function line(what: string, ms: number, bare: number): void {
  console.log(`  ${what.padEnd(52)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / bare).toFixed(2)}× the bare start`);
}

/** Runs the bench and prints its lines. */
export function benchStartup(runs = 15): void {
  const node = process.execPath;
  const bare = median(node, ["-e", "0"], runs);
  console.log(`--help against a bare start (median of ${runs} runs)`);
  line("node -e 0", bare, bare);
  const dist = `${ROOT}dist/platform/node/main.js`;
  if (existsSync(dist)) {
    const stale = statSync(dist).mtimeMs < statSync(`${ROOT}platform/cli.ts`).mtimeMs ? " (dist/ older than platform/cli.ts)" : "";
    line(`node dist/platform/node/main.js --help${stale}`, median(node, [dist, "--help"], runs), bare);
  } else {
    console.log("  (no dist/: npm run build makes it)");
  }
  line("node --import tsx platform/node/main.ts --help", median(node, ["--import", "tsx", "platform/node/main.ts", "--help"], runs), bare);
  for (const [runtime, empty, entry] of [
    ["bun", ["-e", "0"], ["platform/bun/main.ts", "--help"]],
    ["deno", ["eval", "0"], ["run", "-A", "platform/deno/main.ts", "--help"]],
  ] as const) {
    const binary = `${ROOT}.tools/node_modules/.bin/${runtime}`;
    if (!existsSync(binary)) continue;
    const own = median(binary, empty, runs);
    line(`${runtime} ${empty.join(" ")}`, own, own);
    line(`${runtime} ${entry.join(" ")}`, median(binary, entry, runs), own);
  }
}
