/**
 * Two nodes on the network (issue 13): Taquito pointed at a follower. A baker A (`--bake auto`,
 * listening for peers on a loopback port) and a follower B (`--no-activate --bake manual --peer
 * A`, which bakes nothing and takes every block from A) are started for this file alone. Taquito's
 * `transfer` signs and injects at B; the operation reaches A's mempool through B's
 * advertisement, A bakes it, and Taquito sees it confirmed at B, where the block and the balance
 * are read.
 */
import { startNode } from "./node.mjs";

const P2P_LINE = /P2P listening on (\S+) \(peer id (id\w+)\)/;
const P2P = ["--expected-pow", "0", "--no-bootstrap-peers"];

/** Polls `read` every 100 ms until `check` holds, failing after `ms` with `what` and the last value. */
async function eventually(what, read, check, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function getJson(url) {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, version }) {
  const { BOOTSTRAP, balanceOf, bounded, testKey, toolkitAt } = sandbox;
  const test = suite(`Taquito ${version} against a follower node`);
  const started = [];
  let baker;
  let follower;

  test.before(async () => {
    baker = await startNode({ args: [...P2P, "--net-addr", "127.0.0.1:0", "--bake", "auto"] });
    started.push(baker);
    const [, point, peerId] = await eventually("the baker's 'P2P listening on' line", async () => P2P_LINE.exec(baker.output()), (m) => m !== null);
    follower = await startNode({ args: [...P2P, "--no-activate", "--bake", "manual", "--peer", `${point}#${peerId}`] });
    started.push(follower);
  });

  test.after(async () => {
    for (const node of started.reverse()) await node.stop();
  });

  test("a transfer made with Taquito at the follower is baked by the baker and confirmed at the follower", bounded("transfer at a follower", async () => {
    // the follower takes the baker's chain (its activation and first blocks) before Taquito reads it
    const target = await getJson(`${baker.url}/chains/main/blocks/head/header`);
    await eventually(`the follower at the baker's head ${target.hash}`, () => getJson(`${follower.url}/chains/main/blocks/head/header`), (h) => h.level >= target.level);

    const tezos = await toolkitAt(follower.url, BOOTSTRAP[0].sk);
    const { pkh } = await testKey("ed25519", "network destination");
    const op = await tezos.contract.transfer({ to: pkh, amount: 3 });
    assert.is(op.status, "applied");
    const level = await op.confirmation(1);
    const block = await tezos.rpc.getBlock({ block: String(level) });
    assert.ok(block.operations[3].some((o) => o.hash === op.hash), `${op.hash} in the follower's block ${level}`);
    assert.is(await balanceOf(tezos, pkh), 3_000_000n);
    // baked by the baker: the same block there, and the follower baked none of its own
    assert.is(await getJson(`${baker.url}/chains/main/blocks/${level}/hash`), block.hash);
    const mempool = await getJson(`${follower.url}/chains/main/mempool/pending_operations`);
    assert.not.ok(mempool.applied.some((o) => o.hash === op.hash), "the operation left the follower's mempool");
  }));

  test.run();
}
