/**
 * The browser suite: the example pages (examples/browser/) in Debian's Chromium, headless,
 * driven by playwright-core. Builds what the pages load first (`examples/browser/build.mjs`: the
 * node's bundle when it is missing or older than its sources, the example's Taquito), then runs
 * this folder's `*.test.mjs` files with uvu and prints uvu's summary. Arguments: file-name
 * fragments that select the files; `--screenshots` also writes the README's screenshots into
 * docs/images/. Fails at once, saying so, when /usr/bin/chromium is missing.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runFolder } from "../support/run-folder.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const { CHROMIUM, ROOT, closeAll } = await import("./support.mjs");

if (!existsSync(CHROMIUM)) {
  console.error(`test/browser: ${CHROMIUM} is missing; install Debian's Chromium (apt-get install chromium) to run this suite`);
  process.exit(1);
}

const build = spawnSync(process.execPath, [join(ROOT, "examples", "browser", "build.mjs")], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) {
  console.error("test/browser: building the example pages failed");
  process.exit(1);
}

try {
  await runFolder(here, ".test.mjs", process.argv.slice(2).filter((a) => !a.startsWith("--")));
} finally {
  await closeAll();
}
process.exit(process.exitCode ?? 0);
