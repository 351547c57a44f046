/**
 * A real node for the end-to-end tests: `npm start -- --rpc-addr 127.0.0.1:0 --memory --bake auto`
 * run as a subprocess from the repository root, on a free loopback port chosen by the node itself.
 * @module
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LISTENING = /Node listening on (http:\/\/\S+)/;

/**
 * Starts a sandbox node and resolves once it prints its "listening" line (within `timeoutMs`).
 * Resolves to `{ url, stop, output }`: `stop()` sends SIGTERM and waits for the exit; `output()`
 * gives what the node printed so far (for failure messages).
 */
export async function startNode({ timeoutMs = 60_000, args = [] } = {}) {
  // `npm` on PATH is the project's Node (20): the node under test runs there whatever runtime
  // runs the tests. `--silent` keeps npm's own banner out of the output.
  // `npm run dev` runs the sources through tsx (`npm start` runs the compiled dist/).
  const child = spawn("npm", ["run", "--silent", "dev", "--", "--rpc-addr", "127.0.0.1:0", "--memory", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: stop() ends npm, tsx and the node together
  });
  let text = "";
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`the node did not listen within ${timeoutMs} ms`), timeoutMs);
    const fail = (why) => {
      clearTimeout(timer);
      kill(child);
      reject(new Error(`${why}; its output:\n${text}`));
    };
    const onData = (chunk) => {
      text += chunk;
      const match = LISTENING.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.setEncoding("utf8").on("data", onData);
    child.stderr.setEncoding("utf8").on("data", (chunk) => (text += chunk));
    exited.then(({ code, signal }) => fail(`the node exited (code ${code}, signal ${signal})`));
  });
  // The node lives in its own process group: end it with this process, however this one ends.
  process.once("exit", () => kill(child));
  for (const [signal, number] of [["SIGINT", 2], ["SIGTERM", 15]]) {
    process.once(signal, () => {
      kill(child);
      process.exit(128 + number);
    });
  }
  return {
    url,
    output: () => text,
    async stop() {
      kill(child);
      await exited;
    },
  };
}

function kill(child) {
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}
