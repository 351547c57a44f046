/**
 * Endorsements on a network (lib/baker/endorser.ts): two nodes over real P2P pools on loopback
 * TCP, each holding some of the sandbox delegates; each endorses the other's heads through its
 * mempool, and the next block holds the endorsements of every delegate with rights, whichever
 * node holds it.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { closeAll, startPool } from "../p2p/pool-support.ts";

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function get(node: TezosNode, path: string): Promise<Any> {
  const res = await node.fetch(new Request(`http://localhost${path}`));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function bake(node: TezosNode): Promise<string> {
  const res = await node.fetch(new Request("http://localhost/sandbox/bake", { method: "POST" }));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`bake: ${res.status} ${text}`);
  return (JSON.parse(text) as string[])[0]!;
}

async function eventually(what: string, check: () => Promise<boolean>, capMs = 20_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The delegates whose endorsements a block holds (from their receipts). */
async function endorsersIn(node: TezosNode, block: string): Promise<string[]> {
  const ops = (await get(node, `/chains/main/blocks/${block}/operations/0`)) as Any[];
  return ops.flatMap((o) => o.contents.map((c: Any) => c.metadata.delegate as string)).sort();
}

const test = suite("endorsements between nodes holding different delegates");
test.after(async () => {
  await closeAll();
});

test("each node endorses the other's heads, and the next block holds every delegate with rights", async () => {
  const [a, b] = [await startPool(107), await startPool(108)];
  const A = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap1", "bootstrap2", "bootstrap3"], p2p: a.pool });
  const B = await createNode({ bake: { mode: "manual" }, bakerKeys: ["bootstrap4", "bootstrap5"], activate: false, p2p: b.pool });
  try {
    await bake(A);
    await bake(A);
    await b.pool.connect(a.point);
    const top = await get(A, "/chains/main/blocks/head/hash");
    await eventually("B at A's head", async () => (await get(B, "/chains/main/blocks/head/hash")) === top);

    // A bakes a head; B's delegates endorse it from B, A's from A
    const h = await bake(A);
    const level = (await get(A, `/chains/main/blocks/${h}/header`)).level as number;
    const rights = (await get(A, `/chains/main/blocks/head/helpers/endorsing_rights?level=${level}`)) as { delegate: string }[];
    const expected = rights.map((r) => r.delegate).sort();
    assert.ok(expected.some((d) => d === "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv" || d === "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv"), "B's delegates have rights at that level");
    const endorsementsAt = async (node: TezosNode) =>
      ((await get(node, "/chains/main/mempool/pending_operations")).applied as Any[]).filter((o) => o.branch === h && o.contents[0].kind === "endorsement_with_slot").length;
    await eventually("every endorsement of the head in A's mempool", async () => (await endorsementsAt(A)) === expected.length);

    // A's next block holds them all; B validates it
    const next = await bake(A);
    assert.equal(await endorsersIn(A, next), expected);
    await eventually("B at A's new head", async () => (await get(B, "/chains/main/blocks/head/hash")) === next);

    // and the other way: B bakes, A's delegates' endorsements reach B
    const h2 = next;
    const level2 = level + 1;
    const rights2 = ((await get(B, `/chains/main/blocks/head/helpers/endorsing_rights?level=${level2}`)) as { delegate: string }[]).map((r) => r.delegate).sort();
    await eventually("every endorsement of the new head in B's mempool", async () =>
      ((await get(B, "/chains/main/mempool/pending_operations")).applied as Any[]).filter((o) => o.branch === h2 && o.contents[0].kind === "endorsement_with_slot").length === rights2.length);
    const byB = await bake(B);
    assert.equal(await endorsersIn(B, byB), rights2);
    assert.ok(rights2.some((d) => d === "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" || d === "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN" || d === "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU"), "A's delegates endorse B's block");
  } finally {
    await A.close();
    await B.close();
  }
});

test.run();
