/**
 * Synchronisation between nodes in one process, over two real P2P pools on loopback TCP: a
 * follower (`activate: false`) takes a baker's chain from genesis, follows its new heads, and
 * operations injected at either node reach the other's mempool and the blocks of both. Then
 * peers that lie, the lie put into the follower's receiving path: headers that do not link,
 * operations that do not match their header, and an invalid block. Each time the follower
 * greylists the peer, keeps none of the lie (only the valid blocks below it), and lists an
 * invalid block as such.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import type { ChainMessage } from "../../lib/p2p/encoding/chain-messages.ts";
import type { ChainMessageHandler, P2pPool, PeerLink } from "../../lib/p2p/pool/api.ts";
import { fetchedHeader } from "../../lib/shell/distributed-db/requester.ts";
import { closeAll, startPool, type TestPool, until } from "../p2p/pool-support.ts";
import { OpenApi } from "../support/openapi.ts";
import { OCTEZ_FORMATS } from "../conformance/octez-formats.ts";
import { withFloatTimespans } from "../conformance/octez-schemas.ts";

const api = OpenApi.load(new URL("../vectors/octez/rpc-openapi.json", import.meta.url));
const FORMATS = OCTEZ_FORMATS;

/** A `/workers` answer, validated against the file (Octez's floats as numbers). */
async function worker(node: TezosNode, path: string): Promise<any> {
  const json = await call(node, "GET", path);
  api.assertValid(json, withFloatTimespans(api, api.template(path)!), `GET ${path}`, { formats: FORMATS });
  return json;
}

const BOOTSTRAP = ["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN"] as const;

async function call(node: TezosNode, method: string, path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const head = async (node: TezosNode) => (await call(node, "GET", "/chains/main/blocks/head/header")) as { hash: string; level: number };

/** Waits (bounded) until `check` holds, asking again each time. */
async function eventually(what: string, check: () => Promise<boolean>, capMs = 20_000): Promise<void> {
  const end = Date.now() + capMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A transfer of bootstrap1's signed and injected at `node`; its hash. */
async function transfer(node: TezosNode, amount: string): Promise<string> {
  const B = "/chains/main/blocks/head";
  const counter = BigInt(await call(node, "GET", `${B}/context/contracts/${BOOTSTRAP[0]}/counter`)) + 1n;
  const hex = (await call(node, "POST", `${B}/helpers/forge/operations`, {
    branch: await call(node, "GET", `${B}/hash`),
    contents: [{ kind: "transaction", source: BOOTSTRAP[0], fee: "1000", counter: String(counter), gas_limit: "1600", storage_limit: "0", amount, destination: BOOTSTRAP[1] }],
  })) as string;
  const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(hex), genericWatermark());
  return (await call(node, "POST", "/injection/operation", hex + toHex(signature))) as string;
}

const pendingHashes = async (node: TezosNode) => ((await call(node, "GET", "/chains/main/mempool/pending_operations")).applied as { hash: string }[]).map((o) => o.hash);

/**
 * `pool`, with what its links receive rewritten by `inbound` and what they send by `outbound`
 * (the lie of a peer, put where the node reads it).
 */
function tampered(pool: P2pPool, lie: { inbound?: (m: ChainMessage) => ChainMessage; outbound?: (m: ChainMessage) => ChainMessage }): P2pPool {
  const wrapped = new WeakMap<PeerLink, PeerLink>();
  const wrap = (link: PeerLink): PeerLink => {
    let w = wrapped.get(link);
    if (w === undefined) {
      w = {
        peerId: link.peerId,
        disableMempool: link.disableMempool,
        metadata: link.metadata,
        send: (m) => link.send(lie.outbound?.(m) ?? m),
        greylist: () => link.greylist(),
      };
      wrapped.set(link, w);
    }
    return w;
  };
  return new Proxy(pool, {
    get(target, key, receiver) {
      if (key === "setChainMessageHandler") {
        return (h: ChainMessageHandler | undefined) => target.setChainMessageHandler(h && ((from, m) => h(wrap(from), lie.inbound?.(m) ?? m)));
      }
      if (key === "links") return () => target.links().map(wrap);
      if (key === "onPeerChange") return (f: (l: PeerLink, c: "connected" | "disconnected") => void) => target.onPeerChange((l, c) => f(wrap(l), c));
      const v = Reflect.get(target, key, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

const test = suite("synchronisation between two nodes over real pools");
test.after(async () => {
  await closeAll();
});

test("a follower takes the chain from genesis, follows new heads, and operations travel both ways", async () => {
  const [a, b] = [await startPool(61), await startPool(62)];
  const A = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
  const B = await createNode({ bake: { mode: "manual" }, activate: false, p2p: b.pool });
  try {
    await call(A, "POST", "/sandbox/bake?count=30");
    const top = await head(A);
    assert.is((await head(B)).level, 0, "the follower bakes nothing of its own");
    await b.pool.connect(a.point);
    await eventually("the follower at the baker's head", async () => (await head(B)).hash === top.hash);
    for (const level of [1, 2, 3, 17, top.level]) {
      assert.is(await call(B, "GET", `/chains/main/blocks/${level}/hash`), await call(A, "GET", `/chains/main/blocks/${level}/hash`), `block ${level}`);
    }
    // the workers: the peer's validator with the branch it validated, the chain validator's
    // processed blocks, the distributed DB's counts
    const peerWorker = await worker(B, `/workers/chain_validators/main/peers_validators/${a.identity.peerId}`);
    const requests = peerWorker.backlog.flatMap((l: { events: any[] }) => l.events).filter((e: any) => e.request !== undefined);
    assert.equal(requests.map((e: any) => [e.request.request, e.request.block]), [["new_branch", top.hash]]);
    assert.equal((await worker(B, "/workers/chain_validators/main/peers_validators")).map((p: { peer_id: string }) => p.peer_id), [a.identity.peerId]);
    const processed = (await worker(B, "/workers/chain_validators/main")).backlog.flatMap((l: { events: any[] }) => l.events).filter((e: any) => e.processed_block !== undefined);
    assert.equal(processed.at(-1).processed_block.request.hash, top.hash);
    assert.ok(processed.every((e: any) => e.processed_block.outcome === "increment"));
    const ddb = await worker(B, "/workers/chain_validators/main/ddb");
    assert.equal([ddb.active_connections, ddb.active_peers, ddb.block_header_db.table_length], [1, 1, 0]);
    // a new head is advertised and followed
    await call(A, "POST", "/sandbox/bake");
    const next = await head(A);
    await eventually("the follower at the new head", async () => (await head(B)).hash === next.hash);
    // an operation injected at the follower reaches the baker, is baked, and is in the follower's block
    const op = await transfer(B, "1000");
    await eventually("the operation in the baker's mempool", async () => (await pendingHashes(A)).includes(op));
    await call(A, "POST", "/sandbox/bake");
    await eventually("the block with the operation at the follower", async () => ((await call(B, "GET", "/chains/main/blocks/head/operation_hashes/3")) as string[]).includes(op));
    assert.equal(await pendingHashes(B), [], "the follower's mempool let it go");
    // and one injected at the baker reaches the follower's mempool
    const back = await transfer(A, "2000");
    await eventually("the operation in the follower's mempool", async () => (await pendingHashes(B)).includes(back));
    const counted = (await call(B, "GET", `/network/peers/${a.identity.peerId}`)).peer_metadata;
    assert.ok(Number(counted.responses.received.predecessor_header) > 0 && Number(counted.responses.received.operations_for_block) > 0 && Number(counted.responses.received.operations) > 0);
    assert.equal(counted.responses.unexpected, "0");
    assert.is(counted.valid_blocks, String(next.level + 1), "every block from genesis on, and the one with the operation");
  } finally {
    await A.close();
    await B.close();
  }
});

test("a node not bootstrapped yet does not advertise its heads (Octez's broadcast_head); once bootstrapped it does", async () => {
  const [a, b] = [await startPool(81), await startPool(82)];
  // A waits for five peers to be bootstrapped: with one, never on its own
  const A = await createNode({ bake: { mode: "manual" }, p2p: a.pool, synchronisationThreshold: 5 });
  const B = await createNode({ bake: { mode: "manual" }, activate: false, p2p: b.pool });
  try {
    await call(A, "POST", "/sandbox/bake?count=2");
    await b.pool.connect(a.point);
    const first = await head(A);
    await eventually("the follower at the head it asked for", async () => (await head(B)).hash === first.hash);
    await call(A, "POST", "/sandbox/bake");
    // the next head stays with A: B asks nothing more, A tells nothing (the ping shows the link is up)
    await call(B, "GET", `/network/connections/${a.identity.peerId}`);
    await call(A, "GET", "/chains/main/blocks/head/hash");
    assert.is(Number((await call(A, "GET", `/network/peers/${b.identity.peerId}`)).peer_metadata.advertisements.sent.head), 0, "no head advertised");
    assert.equal(await head(B), first);
    await call(A, "PATCH", "/chains/main", { bootstrapped: true });
    await call(A, "POST", "/sandbox/bake");
    const top = await head(A);
    await eventually("the follower at the advertised head", async () => (await head(B)).hash === top.hash);
  } finally {
    await A.close();
    await B.close();
  }
});

interface Lie {
  readonly name: string;
  /** Blocks the follower holds before the lie (0: it bootstraps through it). */
  readonly before: number;
  readonly lie: (baker: TezosNode) => Promise<Parameters<typeof tampered>[1]>;
  /** Whether the lie is an invalid block the follower records. */
  readonly invalid: boolean;
  /** The level of the baker's chain the follower ends at, when the blocks below the lie are valid and kept. */
  readonly keptUpTo?: number;
}

const lies: Lie[] = [
  {
    name: "a header that does not link to the next",
    before: 0,
    invalid: false,
    lie: async () => {
      let first: ChainMessage | undefined;
      return {
        // the answer for one offset is given for another
        inbound: (m) => {
          if (m.kind !== "Predecessor_header" || m.offset < 2) return m;
          if (first === undefined) first = m;
          return m.offset === 3 ? { ...m, header: (first as Extract<ChainMessage, { kind: "Predecessor_header" }>).header } : m;
        },
      };
    },
  },
  {
    name: "operations that do not match their header",
    before: 0,
    invalid: false,
    // blocks 1 and 2 have no endorsements: they are validated before the lie (level 3) shows
    keptUpTo: 2,
    lie: async () => ({ inbound: (m) => (m.kind === "Operations_for_blocks" && m.validation_pass === 0 && m.operations.length > 0 ? { ...m, operations: m.operations.slice(1) } : m) }),
  },
  {
    name: "an invalid block (its signature broken)",
    before: 5,
    invalid: true,
    lie: async () => {
      // the head advertised with a byte of its signature changed: a block under another hash,
      // whose requests the lie maps to the real block and whose answers it maps back
      const names = new Map<string, string>();
      const broken = (m: ChainMessage): ChainMessage => {
        if (m.kind !== "Current_head") return m;
        const data = m.header.protocol_data.slice();
        data[data.length - 1]! ^= 1;
        const header = { ...m.header, protocol_data: data };
        return { ...m, header };
      };
      return {
        inbound: (m) => {
          const out = broken(m);
          if (out !== m && out.kind === "Current_head" && m.kind === "Current_head") {
            names.set(hashOf(out.header), hashOf(m.header));
          }
          if (m.kind === "Operations_for_blocks") {
            for (const [fake, real] of names) if (real === m.hash) return { ...m, hash: fake };
          }
          return out;
        },
        outbound: (m) => (m.kind === "Get_operations_for_blocks" ? { ...m, blocks: m.blocks.map((k) => ({ ...k, hash: names.get(k.hash) ?? k.hash })) } : m),
      };
    },
  },
];

const hashOf = (h: Parameters<typeof fetchedHeader>[0]) => fetchedHeader(h).hash;

for (const [i, l] of lies.entries()) {
  test(`a peer that sends ${l.name} is greylisted, and the follower keeps its head`, async () => {
    const [a, b]: TestPool[] = [await startPool(63 + 2 * i), await startPool(64 + 2 * i)];
    const A = await createNode({ bake: { mode: "manual" }, p2p: a.pool });
    const lie: Parameters<typeof tampered>[1] = {};
    const B = await createNode({ bake: { mode: "manual" }, activate: false, p2p: tampered(b.pool, lie) });
    try {
      await call(A, "POST", "/sandbox/bake?count=8");
      if (l.before > 0) {
        await b.pool.connect(a.point);
        const top = await head(A);
        await eventually("the follower in step", async () => (await head(B)).hash === top.hash);
      }
      Object.assign(lie, await l.lie(A));
      const before = await head(B);
      if (l.before > 0) await call(A, "POST", "/sandbox/bake");
      else await b.pool.connect(a.point);
      await eventually("the peer greylisted", async () => ((await call(B, "GET", "/network/greylist/peers")) as string[]).includes(a.identity.peerId));
      await until(() => b.pool.links().length === 0, "the connection closed");
      if (l.keptUpTo === undefined) assert.equal(await head(B), before, "the follower's head did not move");
      else assert.is((await head(B)).hash, await call(A, "GET", `/chains/main/blocks/${l.keptUpTo}/hash`), "the valid blocks below the lie are kept");
      const invalid = (await call(B, "GET", "/chains/main/invalid_blocks")) as { block: string }[];
      assert.is(invalid.length, l.invalid ? 1 : 0, JSON.stringify(invalid));
      if (l.invalid) assert.is(invalid[0]!.block === (await head(A)).hash, false, "the real block is not the one listed");
    } finally {
      await A.close();
      await B.close();
    }
  });
}

test.run();
