/**
 * The peer validator's branch windows (`lib/shell/peer-validator.ts`): a branch is fetched a
 * window of headers at a time from the node's side up, and a window's blocks are validated before
 * the window after the next is asked for. Over real pools on loopback TCP, in one process:
 *
 * - a node takes a real branch longer than two windows from a peer: every header asked exactly
 *   once, the same blocks as the peer's at every level;
 * - a peer that advertises a made-up branch of 5 000 headers (linked to each other, each block
 *   invalid) gets at most two windows of requests before the node validates the branch's first
 *   block, finds it invalid, lists it under invalid_blocks and greylists the peer; the node's
 *   head does not move. Before the windows the node asked every header of such a branch first.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { rawBlockHeader, type RawBlockHeader } from "../../lib/encoding/block-header.ts";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { fromHex } from "../../lib/encoding/hex.ts";
import { operationListHash } from "../../lib/crypto/hashes.ts";
import type { ChainMessage } from "../../lib/p2p/encoding/chain-messages.ts";
import { operationListPath } from "../../lib/shell/distributed-db/operation-path.ts";
import { fetchedHeader } from "../../lib/shell/distributed-db/requester.ts";
import { operationsHashOf } from "../../lib/shell/operations.ts";
import { HEADERS_PER_WINDOW } from "../../lib/shell/peer-validator.ts";
import { closeAll, limits, startPool, until } from "../p2p/pool-support.ts";

const CHAIN_ID = "NetXdQprcVkpaWU";

async function call(node: TezosNode, method: string, path: string): Promise<any> {
  const res = await node.fetch(new Request(`http://localhost${path}`, { method }));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const head = async (node: TezosNode) => (await call(node, "GET", "/chains/main/blocks/head/header")) as { hash: string; level: number };

/** Waits (bounded) until `check` holds, asking again each time. */
async function eventually(what: string, check: () => Promise<boolean>, capMs = 60_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const test = suite("peer validator: a branch a window of headers at a time");
test.after(async () => {
  await closeAll();
});

test(`a real branch of more than two windows (${HEADERS_PER_WINDOW} headers each): every header asked once, the same blocks`, async () => {
  const [a, b] = [await startPool(101, { limits: limits(0, 1, 2) }), await startPool(102, { limits: limits(0, 1, 2) })];
  const A = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
  const B = await createNode({ bake: { mode: "manual" }, activate: false, p2p: b.pool });
  try {
    await call(A, "POST", `/sandbox/bake?count=${2 * HEADERS_PER_WINDOW + 20}`);
    const top = await head(A);
    await b.pool.connect(a.point);
    await eventually("the follower at the peer's head", async () => (await head(B)).hash === top.hash);
    for (const level of [1, 2, HEADERS_PER_WINDOW - 1, HEADERS_PER_WINDOW, HEADERS_PER_WINDOW + 1, 2 * HEADERS_PER_WINDOW, top.level - 1, top.level]) {
      assert.is(await call(B, "GET", `/chains/main/blocks/${level}/hash`), await call(A, "GET", `/chains/main/blocks/${level}/hash`), `block ${level}`);
    }
    const meta = (await call(B, "GET", `/network/peers/${a.identity.peerId}`)).peer_metadata;
    // the locator's history from genesis: every block between genesis and the head, each once
    assert.is(meta.requests.sent.predecessor_header, String(top.level - 1));
    assert.is(meta.responses.received.predecessor_header, String(top.level - 1));
    assert.is(meta.valid_blocks, String(top.level));
  } finally {
    await B.close();
    await A.close();
  }
});

test("a made-up branch of 5 000 invalid blocks: at most two windows asked, its first block found invalid, the peer greylisted", async () => {
  const [liar, b] = [await startPool(103, { limits: limits(0, 1, 2) }), await startPool(104, { limits: limits(0, 1, 2) })];
  const B = await createNode({ bake: { mode: "manual" }, p2p: b.pool });
  try {
    const before = await head(B);
    // a chain on B's head: each header a child of the one below it (level, predecessor, a second
    // later, the fitness's block count one more, no operations), its signature B's head's: invalid
    const base = decodeBinary(rawBlockHeader, fromHex(await call(B, "GET", "/chains/main/blocks/head/header/raw")));
    const emptyPasses = operationsHashOf([[], [], [], []]);
    const fake: ReturnType<typeof fetchedHeader>[] = [];
    let below = { hash: before.hash, header: base };
    for (let i = 1; i <= 5_000; i++) {
      const header: RawBlockHeader = {
        ...base,
        level: base.level + i,
        predecessor: below.hash,
        timestamp: base.timestamp + i,
        operations_hash: emptyPasses,
        fitness: [base.fitness[0]!, bumped(base.fitness[1]!, i)],
      };
      const f = fetchedHeader(header);
      fake.push(f);
      below = f;
    }
    const top = fake[fake.length - 1]!;
    const byOffset = (offset: number) => fake[fake.length - 1 - offset];
    let asked = 0;
    const emptyList = operationListHash([]);
    liar.pool.setChainMessageHandler((from, m: ChainMessage) => {
      switch (m.kind) {
        case "Get_current_branch":
          void from.send({ kind: "Current_branch", chain_id: CHAIN_ID, locator: { current_head: top.header, history: [fake[fake.length - 2]!.hash, ...fake.slice(0, -2).reverse().slice(0, 8).map((f) => f.hash), before.hash] } }).catch(() => {});
          return;
        case "Get_predecessor_header": {
          asked++;
          const h = m.hash === top.hash ? byOffset(m.offset) : undefined;
          if (h !== undefined) void from.send({ kind: "Predecessor_header", hash: m.hash, offset: m.offset, header: h.header }).catch(() => {});
          return;
        }
        case "Get_operations_for_blocks":
          for (const k of m.blocks) {
            const path = operationListPath([emptyList, emptyList, emptyList, emptyList], k.validation_pass);
            void from.send({ kind: "Operations_for_blocks", hash: k.hash, validation_pass: k.validation_pass, path, operations: [] }).catch(() => {});
          }
          return;
        default:
          return;
      }
    });
    await liar.pool.connect(b.point);
    await until(() => liar.pool.links().length === 1, "connected");
    // the branch is active for the liar once it asked ours: then its answer counts as an advertisement
    await liar.pool.links()[0]!.send({ kind: "Get_current_branch", chain_id: CHAIN_ID });
    await eventually("the liar greylisted", async () => ((await call(B, "GET", "/network/greylist/peers")) as string[]).includes(liar.identity.peerId));
    await until(() => liar.pool.links().length === 0, "the connection closed");
    assert.ok(asked > 0, "the node asked the branch's headers");
    assert.ok(asked <= 2 * HEADERS_PER_WINDOW, `at most two windows asked before the first block was validated: ${asked}`);
    const invalid = (await call(B, "GET", "/chains/main/invalid_blocks")) as { block: string; level: number }[];
    assert.equal(invalid.map((x) => [x.block, x.level]), [[fake[0]!.hash, before.level + 1]], "the branch's first block, invalid");
    assert.equal(await head(B), before, "the head did not move");
  } finally {
    await B.close();
  }
});

/** A fitness element (a big-endian counter) plus `n`, in as many bytes. */
function bumped(element: Uint8Array, n: number): Uint8Array {
  let value = element.reduce((v, b) => (v << 8n) | BigInt(b), 0n) + BigInt(n);
  const out = new Uint8Array(element.length);
  for (let i = out.length - 1; i >= 0; i--, value >>= 8n) out[i] = Number(value & 0xffn);
  return out;
}

test.run();
