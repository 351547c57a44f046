/**
 * Two nodes started as a user starts them (`--memory --net-addr 127.0.0.x:0 --expected-pow 0`,
 * the second with `--peer` naming the first), under Node, Bun and Deno: they connect, and each
 * sees the other in GET /network/connections (incoming on the first, outgoing on the second).
 * Port 0: the node prints the port the system picked ("P2P listening on ADDR:PORT").
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { kill, listening, type NodeProcess, start, stop, tool, within } from "./process.ts";

const RPC = ["--rpc-addr", "127.0.0.1:0", "--bake", "manual"];
const P2P_LINE = /^P2P listening on (127\.0\.0\.\d+):(\d+) \(peer id (id\w+)\)$/m;

/** Waits for a stdout line matching `line` (its groups), or fails with the output once the node exits. */
async function waitFor(node: NodeProcess, line: RegExp, ms = 120_000): Promise<RegExpExecArray> {
  const seen = new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const m = line.exec(node.output().stdout);
      if (m) resolve(m);
    };
    node.child.stdout!.on("data", check);
    check();
    node.exited.then((exit) => reject(new Error(`The node exited (${exit.code ?? exit.signal}) before printing ${line}:\n${exit.stderr}`)));
  });
  return within(seen, ms, `${line}`);
}

/** How each runtime runs the node's entry point. */
const RUNTIMES: [name: string, command: string | undefined, args: (rest: string[]) => string[]][] = [
  // npm run dev (the sources through tsx) passes signals on to the node (npx does not), so that SIGTERM stops it.
  ["node", "npm", (rest) => ["run", "--silent", "dev", "--", ...rest]],
  ["bun", tool("bun"), (rest) => ["platform/bun/main.ts", ...rest]],
  ["deno", tool("deno"), (rest) => ["run", "-A", "platform/deno/main.ts", ...rest]],
];

for (const [runtime, command, args] of RUNTIMES) {
  const two = suite(`two nodes (${runtime})`);
  if (command === undefined) {
    console.log(`Notice: .tools/node_modules/.bin/${runtime} is absent (.ci/run installs it): P2P under ${runtime} is not tested.`);
    two.skip("connect", () => {});
    two.run();
    continue;
  }

  two("two nodes on loopback connect (--peer) and each sees the other in GET /network/connections", async () => {
    const common = ["--memory", ...RPC, "--expected-pow", "0", "--connections", "2"];
    const a = start(command, args([...common, "--net-addr", "127.0.0.1:0"]));
    let b: NodeProcess | undefined;
    try {
      const urlA = await listening(a);
      const [, hostA, portA, idA] = await waitFor(a, P2P_LINE);
      b = start(command, args([...common, "--net-addr", "127.0.0.2:0", "--peer", `${hostA}:${portA}#${idA}`]));
      const urlB = await listening(b);
      const [, , , idB] = await waitFor(b, P2P_LINE);
      const connections = async (url: string, peer: string) => {
        // B dials A at start; both sides record the connection once the handshake is over.
        for (;;) {
          const res = await within(fetch(`${url}/network/connections`), 30_000, "GET /network/connections");
          assert.is(res.status, 200);
          const list = (await res.json()) as { peer_id: string; incoming: boolean }[];
          const found = list.find((c) => c.peer_id === peer);
          if (found !== undefined) return found;
          await within(fetch(`${url}/monitor/bootstrapped`).then((r) => r.text()), 30_000, "a round trip");
        }
      };
      const [onA, onB] = await within(Promise.all([connections(urlA, idB!), connections(urlB, idA!)]), 60_000, "each node to see the other");
      assert.is(onA.incoming, true);
      assert.is(onB.incoming, false);
      for (const node of [b, a]) assert.is((await stop(node)).code, 0, node.output().stderr);
    } finally {
      kill(a);
      if (b !== undefined) kill(b);
    }
  });

  two.run();
}
