/**
 * Acceptance of the node's P2P layer, from outside: the node is started as a user starts it (its
 * command line, under the runtime running this test: `npm start -- …` (`tsx platform/node/main.ts`),
 * `bun platform/bun/main.ts`, `deno run -A platform/deno/main.ts`), in memory, baking on request,
 * listening for peers on a loopback port; the independent test peer (`test/support/p2p-peer/`)
 * connects over a real socket.
 *
 * - A well-behaved peer completes the handshake (the node's peer id is `/network/self`'s, its
 *   stamp meets its own `--expected-pow`), asks Get_current_branch (the sandbox's chain id, a
 *   locator whose head is the head the RPC reads and whose history is every ancestor down to
 *   genesis on this short chain), Get_block_headers (each header's bytes are
 *   `/chains/main/blocks/<h>/header/raw`'s; an unknown hash gets no answer), Get_current_head,
 *   and sees itself in `/network/connections` and `/network/peers` (its peer id, its point,
 *   its socket's port, its metadata) until it disconnects.
 * - Then each bad peer, one at a time, as Octez's `p2p_connect_handler.ml` and `p2p_conn.ml` treat
 *   it: its connection is closed; its address is greylisted (`/network/greylist/ips`, and the
 *   node then closes a new connection from it at once) for garbage, a connection message cut short
 *   by its length or oversized, a stamp under the target, a metadata chunk that does not
 *   decrypt, an unknown message tag once connected (the peer id too, `/network/greylist/peers`);
 *   not for a connection message cut off by the end of the connection, another chain name (a Nack
 *   with Unknown_chain_name), a chunk that does not decrypt once connected, or a stall in the
 *   handshake (the node's authentication timeout). The greylist is cleared between cases
 *   (`DELETE /network/greylist`), after which a good peer connects again; through it all the
 *   node answers RPCs and its head does not move.
 * - A peer that advertises a branch two blocks above the node's head, the first of them invalid
 *   (made from the head's bytes, with a child's level, predecessor, timestamp and fitness: its
 *   signature no longer holds), and serves the node's Get_predecessor_header and
 *   Get_operations_for_blocks: the node fetches them, finds the first block invalid, lists it
 *   under `/chains/main/invalid_blocks`, greylists the peer (its id and address) and closes the
 *   connection; neither block is kept and the head does not move (issue 13).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createServer } from "node:net";
import process from "node:process";
import { runtimeName } from "../../platform/current.ts";
import { kill, listening, type NodeProcess, start, stop, tool, within } from "../platform/process.ts";
import {
  blockHash,
  concat,
  frameConnectionMessage,
  headerHashBytes,
  hex,
  makeIdentity,
  meetsDifficulty,
  encodeOperationListPath,
  Motive,
  operationListListHash,
  PeerClosedError,
  TestPeer,
  toHex,
  type PeerIdentity,
  type PeerMessage,
} from "../support/p2p-peer/mod.ts";

const LOCALHOST = "127.0.0.1";
/** The node's `--expected-pow`: low, so that identities are quick, and not 0, so that a stamp can miss it. */
const POW = 6;
const SANDBOX_CHAIN_ID = "NetXdQprcVkpaWU";
const CHAIN_NAME = "SANDBOXED_TEZOS";
/** Octez prints peers' IPv4 addresses as IPv4-mapped IPv6 (`P2p_addr`, an `Ipaddr.V6`). */
const PEER_ADDR = "::ffff:127.0.0.1";
/** Blocks baked before the peer connects, beside those the node bakes at start (a chain of at most 10 blocks, whose locator has steps of 1: every ancestor). */
const BAKE = 2;
/** The most any one wait may take before the test gives up (the node's authentication timeout is 5 s). */
const WAIT_MS = 30_000;

const unhandled: unknown[] = [];
process.on("unhandledRejection", (e) => unhandled.push(e));

/** A port that was free a moment ago (bound to 0, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, LOCALHOST, resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The node's command line under the runtime running this test, as a user types it. */
function nodeCommand(args: readonly string[]): [string, string[]] | undefined {
  switch (runtimeName()) {
    case "bun": {
      const bun = tool("bun");
      return bun === undefined ? undefined : [bun, ["platform/bun/main.ts", ...args]];
    }
    case "deno": {
      const deno = tool("deno");
      return deno === undefined ? undefined : [deno, ["run", "-A", "platform/deno/main.ts", ...args]];
    }
    default:
      // `npm run dev` runs `exec tsx platform/node/main.ts`: signals reach the node (through `npx`
      // they stop at npm, and the node would outlive SIGTERM).
      return ["npm", ["run", "--silent", "dev", "--", ...args]];
  }
}

let node: NodeProcess | undefined;
let rpcUrl = "";
let p2pPort = 0;
/** The node's peer id, as its 'P2P listening on' line says. */
let nodePeerId = "";
let head = { hash: "", level: 0 };
/** Hashes of the chain by level, genesis first. */
let chain: string[] = [];

async function rpc(path: string, init?: RequestInit): Promise<any> {
  const res = await within(fetch(`${rpcUrl}${path}`, init), WAIT_MS, `${init?.method ?? "GET"} ${path}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return text === "" ? undefined : JSON.parse(text);
}

async function rawHeader(hash: string): Promise<string> {
  return (await rpc(`/chains/main/blocks/${hash}/header/raw`)) as string;
}

async function readHead(): Promise<{ hash: string; level: number }> {
  const h = (await rpc("/chains/main/blocks/head/header")) as { hash: string; level: number };
  return { hash: h.hash, level: h.level };
}

/**
 * The header of a child of the block whose raw header is `parent` (its hash `parentHash`): one
 * level up, `parentHash` as predecessor, one second later, `operationsHash`, the fitness's last
 * element (Emmy*'s block count) one more; the context and the protocol data left as they are.
 * Offsets of the shell header: level 0, proto 4, predecessor 5, timestamp 37, validation pass 45,
 * operations hash 46, fitness 78 (4-byte size, then each element 4-byte sized).
 */
function childHeader(parent: Uint8Array, parentHash: Uint8Array, operationsHash: Uint8Array): Uint8Array {
  const out = Uint8Array.from(parent);
  const view = new DataView(out.buffer);
  view.setInt32(0, view.getInt32(0) + 1);
  out.set(parentHash, 5);
  view.setBigInt64(37, view.getBigInt64(37) + 1n);
  out.set(operationsHash, 46);
  const end = 82 + view.getUint32(78);
  let last = 0;
  let size = 0;
  for (let at = 82; at < end; at += 4 + size) {
    size = view.getUint32(at);
    last = at + 4;
  }
  for (let i = last + size - 1; i >= last; i--) {
    out[i] = (out[i]! + 1) & 0xff; // big-endian increment, carrying
    if (out[i] !== 0) break;
  }
  return out;
}

/** A fresh identity that meets the node's target (fresh: no peer id carries over between cases). */
function identity(): PeerIdentity {
  return makeIdentity(POW);
}

function dial(id: PeerIdentity = identity(), announcedPort?: number): Promise<TestPeer> {
  return within(TestPeer.dial({ host: LOCALHOST, port: p2pPort, identity: id, ...(announcedPort === undefined ? {} : { announcedPort }) }), WAIT_MS, "a TCP connection to the node's P2P port");
}

/** Waits (bounded) for the node to close the connection; what it still sent. */
function closedByNode(peer: TestPeer, what: string): Promise<Uint8Array> {
  return within(peer.closedByRemote(), WAIT_MS, `the node to close the connection (${what})`);
}

/** A peer through the whole handshake, its chain activated, then a round trip that shows the node runs the connection. */
async function connected(id: PeerIdentity = identity(), announcedPort?: number): Promise<TestPeer> {
  const peer = await dial(id, announcedPort);
  const answer = await within(peer.handshake(), WAIT_MS, "the handshake");
  assert.equal(answer, { kind: "Ack" }, "the node accepts a well-behaved peer");
  // Octez answers chain requests only on a chain active for the peer (p2p_reader.ml, may_handle):
  // asking the branch activates it, and Get_current_head is answered from then on.
  await peer.send({ kind: "Get_current_branch", chainId: SANDBOX_CHAIN_ID });
  await within(peer.receive((m) => m.kind === "Current_branch"), WAIT_MS, "Current_branch");
  await peer.send({ kind: "Get_current_head", chainId: SANDBOX_CHAIN_ID });
  await within(peer.receive((m) => m.kind === "Current_head"), WAIT_MS, "Current_head");
  return peer;
}

async function greylistedIps(): Promise<string[]> {
  const answer = (await rpc("/network/greylist/ips")) as { ips: string[]; not_reliable_since: unknown };
  return answer.ips;
}

/** Waits (bounded) until `check` holds, reading the node's state again each time. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const command = nodeCommand([]);
const p2p = suite("node P2P, a test peer against a node started from its command line");

// uvu drops an error thrown by a `before` hook without a word: print it.
p2p.before(() =>
  startNode().catch((e: unknown) => {
    console.error(`Starting the node failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    throw e;
  }),
);

/** Starts the node, bakes, and reads the chain. */
async function startNode(): Promise<void> {
  if (command === undefined) return;
  const [binary, args] = nodeCommand([
    "--memory",
    "--rpc-addr",
    `${LOCALHOST}:0`,
    "--net-addr",
    `${LOCALHOST}:0`,
    "--expected-pow",
    String(POW),
    "--no-bootstrap-peers",
    "--bake",
    "manual",
  ])!;
  node = start(binary, args);
  rpcUrl = await listening(node);
  // The pool starts once the RPC servers listen, and says where it listens.
  const p2pLine = /P2P listening on 127\.0\.0\.1:(\d+) \(peer id (id\w+)\)/;
  const match = await within(
    new Promise<RegExpExecArray>((resolve) => {
      const check = () => {
        const m = p2pLine.exec(node!.output().stdout);
        if (m !== null) resolve(m);
      };
      node!.child.stdout!.on("data", check);
      check();
    }),
    WAIT_MS,
    "the node's 'P2P listening on' line",
  );
  p2pPort = Number(match[1]);
  nodePeerId = match[2]!;
  const before = await readHead();
  await rpc(`/sandbox/bake?count=${BAKE}`, { method: "POST" });
  head = await readHead();
  assert.is(head.level, before.level + BAKE);
  assert.ok(head.level <= 10, "a locator of at most 10 blocks has steps of 1");
  chain = [];
  for (let level = 0; level <= head.level; level++) chain.push((await rpc(`/chains/main/blocks/${level}/hash`)) as string);
}

p2p.after(async () => {
  if (node === undefined) return;
  if (node.child.exitCode !== null || node.child.signalCode !== null) {
    throw new Error(`the node exited before the end of the tests:\n${node.output().stderr}`);
  }
  try {
    const exit = await stop(node, "SIGTERM");
    assert.is(exit.code, 0, `the node exits 0 on SIGTERM:\n${exit.stderr}`);
    assert.not.match(exit.stderr, /Unexpected error|unhandled/i);
  } finally {
    kill(node);
  }
  assert.equal(unhandled, [], "no unhandled rejection in the test");
});

if (command === undefined) {
  console.log(`Notice: .tools/node_modules/.bin/${runtimeName()} is absent: the node is not started under ${runtimeName()}.`);
  p2p.skip("the node under this runtime", () => {});
} else {
  p2p("handshake: the node's connection message, metadata and Ack", async () => {
    const peer = await dial();
    assert.equal(await within(peer.handshake(), WAIT_MS, "the handshake"), { kind: "Ack" });
    assert.is(peer.remotePeerId, nodePeerId);
    assert.is(await rpc("/network/self"), nodePeerId);
    assert.equal(peer.remote!.version, { chainName: CHAIN_NAME, distributedDbVersion: 2, p2pVersion: 1 });
    assert.is(peer.remote!.port, p2pPort, "the node announces its listening port");
    assert.ok(meetsDifficulty(peer.remote!.publicKey, peer.remote!.stamp, POW), "the node's own stamp meets its --expected-pow");
    assert.equal(peer.remoteMetadata, { disableMempool: false, privateNode: false });
    await peer.send({ kind: "Disconnect" });
    await closedByNode(peer, "Disconnect");
    peer.close();
  });

  p2p("Get_current_branch: the sandbox's chain id and a locator of the head the RPC reads", async () => {
    const peer = await connected();
    // one byte per chunk: the node must put the message together across chunks
    await peer.send({ kind: "Get_current_branch", chainId: SANDBOX_CHAIN_ID }, 1);
    const m = (await within(peer.receive((x) => x.kind === "Current_branch"), WAIT_MS, "Current_branch")) as Extract<PeerMessage, { kind: "Current_branch" }>;
    assert.is(m.chainId, SANDBOX_CHAIN_ID);
    assert.is(toHex(m.head), await rawHeader(head.hash));
    assert.is(blockHash.encode(headerHashBytes(m.head)), head.hash);
    assert.equal(m.history, chain.slice(0, head.level).reverse(), "every ancestor, nearest first, down to genesis");
    peer.close();
  });

  p2p("Get_block_headers: each known header with the bytes of /header/raw; an unknown hash gets nothing", async () => {
    const peer = await connected();
    await peer.send({ kind: "Get_block_headers", hashes: chain.slice(1) });
    const got = new Map<string, string>();
    while (got.size < head.level) {
      const m = await within(peer.receive((x) => x.kind === "Block_header"), WAIT_MS, "Block_header");
      const header = (m as Extract<PeerMessage, { kind: "Block_header" }>).header;
      got.set(blockHash.encode(headerHashBytes(header)), toHex(header));
    }
    for (const hash of chain.slice(1)) assert.is(got.get(hash), await rawHeader(hash), `header of ${hash}`);
    // An unknown block: no answer. The head asked next is the next answer of either kind.
    await peer.send({ kind: "Get_block_headers", hashes: [blockHash.encode(new Uint8Array(32).fill(0x5a))] });
    await peer.send({ kind: "Get_current_head", chainId: SANDBOX_CHAIN_ID });
    const next = await within(peer.receive((x) => x.kind === "Block_header" || x.kind === "Current_head"), WAIT_MS, "an answer");
    assert.is(next.kind, "Current_head");
    peer.close();
  });

  p2p("Get_current_head: the head's header and an empty mempool", async () => {
    const peer = await connected();
    await peer.send({ kind: "Bootstrap" }); // answered with Advertise or nothing; the connection stays
    await peer.send({ kind: "Get_current_head", chainId: SANDBOX_CHAIN_ID });
    const m = (await within(peer.receive((x) => x.kind === "Current_head"), WAIT_MS, "Current_head")) as Extract<PeerMessage, { kind: "Current_head" }>;
    assert.is(m.chainId, SANDBOX_CHAIN_ID);
    assert.is(toHex(m.head), await rawHeader(head.hash));
    assert.equal([m.knownValid, m.pending], [[], []]);
    peer.close();
  });

  p2p("the peer in /network/connections and /network/peers while connected, then disconnected", async () => {
    const announcedPort = await freePort();
    const peer = await connected(identity(), announcedPort);
    const connections = (await rpc("/network/connections")) as any[];
    const mine = connections.filter((c) => c.peer_id === peer.peerId);
    assert.is(mine.length, 1, "one connection of this peer");
    assert.equal(mine[0], {
      incoming: true,
      peer_id: peer.peerId,
      id_point: { addr: PEER_ADDR, port: announcedPort },
      remote_socket_port: peer.socket.local.port,
      announced_version: { chain_name: CHAIN_NAME, distributed_db_version: 2, p2p_version: 1 },
      private: false,
      local_metadata: { disable_mempool: false, private_node: false },
      remote_metadata: { disable_mempool: false, private_node: false },
    });
    assert.equal(await rpc(`/network/connections/${peer.peerId}`), mine[0]);
    const peers = (await rpc("/network/peers")) as [string, any][];
    const info = peers.find(([id]) => id === peer.peerId)?.[1];
    assert.ok(info !== undefined, "the peer is known");
    assert.is(info.state, "running");
    assert.equal(info.reachable_at, { addr: PEER_ADDR, port: announcedPort });
    assert.equal(info.conn_metadata, { disable_mempool: false, private_node: false });
    assert.ok(Number(info.stat.total_recv) > 0 && Number(info.stat.total_sent) > 0, "bytes counted both ways");
    const points = (await rpc("/network/points")) as [string, any][];
    assert.ok(points.some(([p]) => p === `${LOCALHOST}:${announcedPort}`), "the announced point is known (an IPv4 point printed as such)");

    await peer.send({ kind: "Disconnect" });
    await closedByNode(peer, "Disconnect");
    peer.close();
    await eventually("the connection to leave /network/connections", async () => !((await rpc("/network/connections")) as any[]).some((c) => c.peer_id === peer.peerId));
    const after = (await rpc(`/network/peers/${peer.peerId}`)) as { state: string };
    assert.is(after.state, "disconnected");
  });

  // --- bad peers -------------------------------------------------------------------------------

  interface BadCase {
    readonly name: string;
    /** Whether Octez greylists the address for it. */
    readonly greylisted: boolean;
    /** Misbehaves, and checks what the node sent back; returns the peer, whose connection the node must close. */
    run(): Promise<TestPeer>;
  }

  const badCases: BadCase[] = [
    {
      name: "garbage instead of a connection message",
      greylisted: true,
      async run() {
        const peer = await dial();
        await peer.sendRawConnectionMessage(concat(hex("0064"), new Uint8Array(100).fill(0xab)));
        return peer;
      },
    },
    {
      name: "a connection message whose length leaves out its last field",
      greylisted: true,
      async run() {
        const peer = await dial();
        const body = peer.connectionMessageBody();
        await peer.sendRawConnectionMessage(frameConnectionMessage(body.subarray(0, body.length - 2)));
        return peer;
      },
    },
    {
      name: "an oversized connection message (bytes past its end)",
      greylisted: true,
      async run() {
        const peer = await dial();
        await peer.sendRawConnectionMessage(frameConnectionMessage(concat(peer.connectionMessageBody(), new Uint8Array(200))));
        return peer;
      },
    },
    {
      name: "a connection message whose chain name is longer than the message",
      greylisted: true,
      async run() {
        const peer = await dial();
        const body = Uint8Array.from(peer.connectionMessageBody());
        body[2 + 32 + 24 + 24 + 1] = 0x01; // the chain name's 4-byte length: 65 536 more
        await peer.sendRawConnectionMessage(frameConnectionMessage(body));
        return peer;
      },
    },
    {
      name: "a truncated connection message, then the end of the connection",
      greylisted: false,
      async run() {
        const peer = await dial();
        await peer.sendRawConnectionMessage(frameConnectionMessage(peer.connectionMessageBody()).subarray(0, 50));
        peer.socket.end();
        return peer;
      },
    },
    {
      name: "a stamp that misses the node's target",
      greylisted: true,
      async run() {
        const peer = await dial(makeIdentity(0, { missing: POW }));
        await peer.sendConnectionMessage();
        await within(peer.readConnectionMessage(), WAIT_MS, "the node's connection message");
        return peer;
      },
    },
    {
      name: "another chain name (a Nack, Unknown_chain_name)",
      greylisted: false,
      async run() {
        const peer = await dial();
        await peer.sendConnectionMessage({ version: { chainName: "TEZOS_MAINNET", distributedDbVersion: 2, p2pVersion: 1 } });
        await within(peer.readConnectionMessage(), WAIT_MS, "the node's connection message");
        peer.keyChannel();
        await peer.sendMetadata();
        await within(peer.readMetadata(), WAIT_MS, "the node's metadata");
        const nack = await within(peer.readAck(), WAIT_MS, "the node's Nack");
        assert.is(nack.kind, "Nack");
        assert.is((nack as { motive: number }).motive, Motive.UnknownChainName);
        return peer;
      },
    },
    {
      name: "a metadata chunk that does not decrypt",
      greylisted: true,
      async run() {
        const peer = await dial();
        await peer.sendConnectionMessage();
        await within(peer.readConnectionMessage(), WAIT_MS, "the node's connection message");
        peer.keyChannel();
        await peer.writeForgedChunk(Uint8Array.of(0, 0));
        return peer;
      },
    },
    {
      name: "a stall after the connection messages (the node's authentication timeout)",
      greylisted: false,
      async run() {
        const peer = await dial();
        await peer.sendConnectionMessage();
        await within(peer.readConnectionMessage(), WAIT_MS, "the node's connection message");
        return peer;
      },
    },
    {
      name: "an unknown message tag once connected",
      greylisted: true,
      async run() {
        const peer = await connected();
        await peer.sendFrame(hex("0999010203"));
        return peer;
      },
    },
    {
      name: "a chunk that does not decrypt once connected",
      greylisted: false,
      async run() {
        const peer = await connected();
        await peer.writeForgedChunk(hex("000000020002"));
        return peer;
      },
    },
  ];

  for (const bad of badCases) {
    p2p(`bad peer: ${bad.name}: closed, ${bad.greylisted ? "" : "not "}greylisted, the node unchanged`, async () => {
      await rpc("/network/greylist", { method: "DELETE" });
      assert.equal(await greylistedIps(), [], "the greylist is empty to begin with");
      const peer = await bad.run();
      const peerId = peer.peerId;
      await closedByNode(peer, bad.name);
      peer.close();

      if (bad.greylisted) {
        await eventually("the address in /network/greylist/ips", async () => (await greylistedIps()).includes(PEER_ADDR));
        assert.equal(await greylistedIps(), [PEER_ADDR]);
        if (bad.name.includes("once connected")) assert.ok(((await rpc("/network/greylist/peers")) as string[]).includes(peerId), "the peer id greylisted too");
        // A greylisted address is turned away at once: not even the node's connection message.
        const again = await dial();
        assert.is((await closedByNode(again, "a greylisted address")).length, 0, "nothing sent to a greylisted address");
        again.close();
        await rpc("/network/greylist", { method: "DELETE" });
        assert.equal(await greylistedIps(), []);
      } else {
        assert.equal(await greylistedIps(), [], "not greylisted");
      }
      // A good peer from the same address is served.
      const good = await connected();
      good.close();
      assert.equal(await readHead(), head, "the chain did not move");
    });
  }

  p2p("a peer whose branch holds an invalid block: greylisted, closed, the block under invalid_blocks, nothing of its branch kept", async () => {
    await rpc("/network/greylist", { method: "DELETE" });
    // two blocks on the node's head, made from its head's bytes: the level, predecessor, timestamp
    // and fitness of a child, the operations hash of four empty passes; the rest (context,
    // signature) is the head's, so the first is invalid
    const passes: Uint8Array[][] = [[], [], [], []];
    const x1 = childHeader(hex(await rawHeader(head.hash)), blockHash.decode(head.hash), operationListListHash(passes));
    const x1Hash = blockHash.encode(headerHashBytes(x1));
    const x2 = childHeader(x1, headerHashBytes(x1), operationListListHash(passes));
    const x2Hash = blockHash.encode(headerHashBytes(x2));
    const peer = await connected();
    const peerId = peer.peerId;
    // our branch, advertised: its head two levels up, its history down through the node's head
    await peer.send({ kind: "Current_branch", chainId: SANDBOX_CHAIN_ID, head: x2, history: [x1Hash, ...chain.slice(0, head.level + 1).reverse()] });
    // serve what the node asks of it until the node closes the connection
    const asked: string[] = [];
    const serve = async (): Promise<unknown> => {
      for (;;) {
        let m: PeerMessage;
        try {
          m = await peer.receive();
        } catch (e) {
          return e;
        }
        if (m.kind === "Get_predecessor_header") {
          asked.push(`predecessor ${m.hash === x2Hash ? "x2" : m.hash} ${m.offset}`);
          if (m.hash === x2Hash && m.offset === 1) await peer.send({ kind: "Predecessor_header", hash: x2Hash, offset: 1, header: x1 }).catch(() => {});
        } else if (m.kind === "Get_operations_for_blocks") {
          for (const b of m.blocks) {
            asked.push(`operations ${b.hash === x1Hash ? "x1" : b.hash === x2Hash ? "x2" : b.hash} ${b.validationPass}`);
            const path = encodeOperationListPath(passes, b.validationPass);
            await peer.send({ kind: "Operations_for_blocks", hash: b.hash, validationPass: b.validationPass, path, operations: [] }).catch(() => {});
          }
        }
      }
    };
    const end = await within(serve(), WAIT_MS, "the node to close the connection of the peer that sent an invalid block");
    assert.instance(end, PeerClosedError, `the node closed the connection: ${String(end)}`);
    peer.close();
    // the node fetched the branch from its head: the header below the advertised one, then the first block's passes
    assert.ok(asked.includes("predecessor x2 1"), `asked: ${asked.join(", ")}`);
    for (let pass = 0; pass < 4; pass++) assert.ok(asked.includes(`operations x1 ${pass}`), `asked: ${asked.join(", ")}`);
    await eventually("the peer in /network/greylist/peers", async () => ((await rpc("/network/greylist/peers")) as string[]).includes(peerId));
    assert.ok((await greylistedIps()).includes(PEER_ADDR), "its address greylisted too");
    const invalid = (await rpc("/chains/main/invalid_blocks")) as { block: string; level: number; errors: unknown[] }[];
    const entry = invalid.find((b) => b.block === x1Hash);
    assert.ok(entry !== undefined, `${x1Hash} under invalid_blocks: ${JSON.stringify(invalid).slice(0, 300)}`);
    assert.is(entry!.level, head.level + 1);
    assert.is((entry!.errors[0] as { id: string }).id, "validator.invalid_block", "with the errors that made it invalid (the signature, here)");
    for (const h of [x1Hash, x2Hash]) assert.is((await fetch(`${rpcUrl}/chains/main/blocks/${h}/hash`)).status, 404, `${h} is not kept`);
    assert.equal(await readHead(), head, "the head did not move");
    assert.is(((await rpc("/network/connections")) as { peer_id: string }[]).some((c) => c.peer_id === peerId), false);
    // the node's state back as it was for the next cases
    assert.equal(await rpc(`/chains/main/invalid_blocks/${x1Hash}`, { method: "DELETE" }), {});
    await rpc("/network/greylist", { method: "DELETE" });
  });

  p2p("after every bad peer: the node still serves RPCs, its head unchanged, no connection left over", async () => {
    assert.equal(await readHead(), head);
    assert.is(await rawHeader(head.hash), await rawHeader("head"));
    await eventually("no connection left", async () => ((await rpc("/network/connections")) as any[]).length === 0);
  });
}

p2p.run();
