/**
 * The node answering its peers' chain requests (Octez v12 `p2p_reader.ml`): a node made by
 * `createNode` with a P2P pool written here (it keeps the chain message handler the node gives
 * it), a chain baked in process (a transfer in a block, another in the mempool), and requests and
 * answers that go through lib/p2p's wire encoding both ways. Locators are checked against Octez's
 * step generator written again here from `block_locator.ml` and against the receiver's check
 * (`to_steps`); Merkle paths against Octez's `check_path` and the block header's `operations_hash`.
 */
import { readFile } from "node:fs/promises";
import { sha256 } from "@noble/hashes/sha2.js";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../lib/node.ts";
import { SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import type { TezosNode } from "../../lib/node.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { blake2b256 } from "../../lib/crypto/blake2b.ts";
import { operationListHash } from "../../lib/crypto/hashes.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { B58, b58decode, b58encode } from "../../lib/encoding/base58.ts";
import { rawBlockHeader, type RawBlockHeader } from "../../lib/encoding/block-header.ts";
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { rawOperation } from "../../lib/encoding/operation.ts";
import { protocolRecord } from "../../lib/encoding/protocol.ts";
import { peerIdOf, publicKeyOf } from "../../lib/p2p/identity.ts";
import type { ChainMessage } from "../../lib/p2p/encoding/chain-messages.ts";
import type { OperationListPath } from "../../lib/p2p/encoding/operation-path.ts";
import { decodeMessage, encodeMessage } from "../../lib/p2p/encoding/p2p-message.ts";
import type { ChainMessageHandler, P2pPool, PeerLink, PeerMetadata } from "../../lib/p2p/pool/api.ts";
import { emptyPeerMetadata } from "../../lib/p2p/pool/peers.ts";
import { operationListPath } from "../../lib/shell/distributed-db/operation-path.ts";
import { locatorSteps } from "../../lib/shell/distributed-db/locator.ts";

const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";
const CHAIN = "NetXdQprcVkpaWU";
const OTHER_CHAIN = b58encode(B58.chainId, Uint8Array.of(1, 2, 3, 4));
const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
const UNKNOWN_BLOCK = b58encode(B58.blockHash, new Uint8Array(32).fill(7));
const UNKNOWN_OPERATION = b58encode(B58.operationHash, new Uint8Array(32).fill(7));
const UNKNOWN_PROTOCOL = b58encode(B58.protocolHash, new Uint8Array(32).fill(7));

const peerId = (n: number) => peerIdOf(publicKeyOf(new Uint8Array(32).fill(n)));
const SELF = peerId(40);

// ---- a pool that only keeps what the node gives it ------------------------------------------

class HandlerPool implements P2pPool {
  readonly peerId = SELF;
  readonly announcedVersion = { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 };
  readonly supportedVersions = [this.announcedVersion];
  handler: ChainMessageHandler | undefined;
  closed = 0;
  setChainMessageHandler(handler: ChainMessageHandler | undefined): void {
    this.handler = handler;
  }
  onPeerChange(): () => void {
    return () => {};
  }
  links(): PeerLink[] {
    return [];
  }
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.closed++;
  }
  stat() {
    return { totalSent: 0, totalRecv: 0, currentInflow: 0, currentOutflow: 0 };
  }
  connections() {
    return [];
  }
  connection() {
    return undefined;
  }
  async disconnect() {
    return false;
  }
  points() {
    return [];
  }
  point() {
    return undefined;
  }
  async connect() {}
  patchPoint() {
    return undefined;
  }
  pointBanned() {
    return false;
  }
  pointLog() {
    return undefined;
  }
  watchPoint() {
    return (async function* () {})();
  }
  peers() {
    return [];
  }
  peer() {
    return undefined;
  }
  patchPeer() {
    return undefined;
  }
  peerBanned() {
    return false;
  }
  peerLog() {
    return undefined;
  }
  watchPeer() {
    return (async function* () {})();
  }
  clearGreylist() {}
  greylistedIps() {
    return { ips: [] };
  }
  greylistedPeers() {
    return [];
  }
  events() {
    return (async function* () {})();
  }
}

/** A connected peer: what the node sends it goes through the wire encoding and is kept. */
class Peer implements PeerLink {
  readonly peerId: string;
  readonly disableMempool: boolean;
  readonly metadata: PeerMetadata = emptyPeerMetadata();
  readonly received: ChainMessage[] = [];
  failing = false;
  greylisted = false;
  constructor(n: number, disableMempool = false) {
    this.peerId = peerId(n);
    this.disableMempool = disableMempool;
  }
  async send(message: ChainMessage): Promise<void> {
    if (this.failing) throw new Error("connection closed");
    this.received.push(decodeMessage(encodeMessage(message)) as ChainMessage);
  }
  async greylist(): Promise<void> {
    this.greylisted = true;
  }
  /** What it received since the last call. */
  take(): ChainMessage[] {
    return this.received.splice(0);
  }
}

// ---- the node -------------------------------------------------------------------------------

interface World {
  node: TezosNode;
  pool: HandlerPool;
  /** Asks as `from` would, the message going through the wire encoding; resolves once answered. */
  ask(from: Peer, message: ChainMessage): Promise<void>;
  /** Hash of the main-branch block at each level. */
  hashes: string[];
  head: RawBlockHeader & { hash: string };
  /** The block with the baked transfer (pass 3), its hash and operations per pass. */
  withTransfer: { hash: string; passes: string[][] };
  baked: { hash: string; bytes: Uint8Array };
  pending: { hash: string; bytes: Uint8Array };
}

async function rpc(node: TezosNode, method: string, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  assert.is(res.status, 200, `${method} ${path}: ${text}`);
  return JSON.parse(text);
}

async function header(node: TezosNode, block: string): Promise<RawBlockHeader & { hash: string }> {
  const raw = (await rpc(node, "GET", `/chains/main/blocks/${block}/header/raw`)) as string;
  const hash = (await rpc(node, "GET", `/chains/main/blocks/${block}/hash`)) as string;
  return { ...decodeBinary(rawBlockHeader, fromHex(raw)), hash };
}

/** Forges, signs (bootstrap1) and injects a 1 tez transfer; its hash and bytes. */
async function transfer(node: TezosNode): Promise<{ hash: string; bytes: Uint8Array }> {
  const head = "/chains/main/blocks/head";
  const counter = BigInt((await rpc(node, "GET", `${head}/context/contracts/${BOOTSTRAP1}/counter`)) as string) + 1n;
  const hex = (await rpc(node, "POST", `${head}/helpers/forge/operations`, {
    branch: await rpc(node, "GET", `${head}/hash`),
    contents: [
      { kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(counter), gas_limit: "1520", storage_limit: "0", amount: "1000000", destination: BOOTSTRAP2 },
    ],
  })) as string;
  const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(hex), genericWatermark());
  const bytes = fromHex(hex + toHex(signature));
  const hash = (await rpc(node, "POST", "/injection/operation", toHex(bytes))) as string;
  return { hash, bytes };
}

async function world(): Promise<World> {
  const pool = new HandlerPool();
  const node = await createNode({ bake: { mode: "manual" }, p2p: pool, readResource: async (url) => new Uint8Array(await readFile(url)) });
  await rpc(node, "POST", "/sandbox/bake?count=40");
  const baked = await transfer(node);
  const [withTransferHash] = (await rpc(node, "POST", "/sandbox/bake")) as string[];
  const passes = (await rpc(node, "GET", `/chains/main/blocks/${withTransferHash}/operation_hashes`)) as string[][];
  assert.equal(passes[3], [baked.hash]);
  const pending = await transfer(node);
  const head = await header(node, "head");
  const hashes: string[] = [];
  for (let l = 0; l <= head.level; l++) hashes.push((await rpc(node, "GET", `/chains/main/blocks/${l}/hash`)) as string);
  const ask = async (from: Peer, message: ChainMessage) => {
    assert.ok(pool.handler !== undefined, "the node gave the pool no handler");
    await pool.handler(from, decodeMessage(encodeMessage(message)) as ChainMessage);
  };
  return { node, pool, ask, hashes, head, withTransfer: { hash: withTransferHash!, passes }, baked, pending };
}

// ---- Octez's algorithms, written again from its sources ---------------------------------------

/** `Block_locator.Step` (block_locator.ml): init, draw and next, on explicit state tuples. */
function octezSteps(sender: string, receiver: string, head: string, count: number): number[] {
  const bytes = (kind: typeof B58.blockHash, s: string) => b58decode(kind, s);
  let state: [step: number, counter: number, seed: Uint8Array] = [
    1,
    9,
    sha256(Uint8Array.from([...bytes(B58.cryptoboxPublicKeyHash, sender), ...bytes(B58.cryptoboxPublicKeyHash, receiver), ...bytes(B58.blockHash, head)])),
  ];
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const [step, counter, seed] = state;
    let gap = 0;
    let next = seed;
    if (step > 1) {
      const n = Math.floor(step / 2) + 1;
      const int32 = ((seed[0]! << 24) | (seed[1]! << 16) | (seed[2]! << 8) | seed[3]!) | 0;
      gap = int32 - n * Math.trunc(int32 / n); // OCaml's Int32.rem
      next = sha256(seed);
    }
    state = counter === 0 ? [step * 2, 9, next] : [step, counter - 1, next];
    out.push(step - gap);
  }
  return out;
}

/** A locator's history as `Block_locator.compute` walks a chain kept whole from genesis (the caboose). */
function octezHistory(hashes: string[], headLevel: number, steps: number[], size = 200): string[] {
  const history: string[] = [];
  let level = headLevel;
  for (let i = 0; i < size; i++) {
    const target = level - steps[i]!;
    if (target < 0) {
      if (level !== 0) history.push(hashes[0]!);
      break;
    }
    history.push(hashes[target]!);
    level = target;
  }
  return history;
}

/** Octez's `Generic_Merkle_tree.check_path`: the root a path leads to from a leaf, and the leaf's position. */
function checkPath(path: OperationListPath, leaf: Uint8Array): { root: Uint8Array; position: number } {
  const walk = (p: OperationListPath): [Uint8Array, number, number] => {
    if (p.kind === "Op") return [blake2b256(leaf), 1, 0];
    if (p.kind === "Left") {
      const [l, s, pos] = walk(p.path);
      return [blake2b256(l, b58decode(B58.operationListListHash, p.right)), s * 2, pos];
    }
    const [r, s, pos] = walk(p.path);
    return [blake2b256(b58decode(B58.operationListListHash, p.left), r), s * 2, pos + s];
  };
  const [root, , position] = walk(path);
  return { root, position };
}

const listHashOf = (ops: string[]) => operationListHash(ops.map((h) => b58decode(B58.operationHash, h)));

// ---- tests ----------------------------------------------------------------------------------

const t = suite<{ w: World }>("distributed DB, read side");

t.before(async (ctx) => {
  ctx.w = await world();
});
t.after(async (ctx) => {
  await ctx.w?.node.close();
});

t("createNode gives the pool its handler and serves /network over it; close() closes the pool", async () => {
  const pool = new HandlerPool();
  const node = await createNode({ bake: { mode: "manual" }, p2p: pool });
  assert.ok(pool.handler !== undefined);
  assert.is(await rpc(node, "GET", "/network/self"), SELF);
  assert.equal(await rpc(node, "GET", "/network/points"), []);
  await node.close();
  assert.equal([pool.closed, pool.handler], [1, undefined]);
});

t("Get_current_branch: the head and the locator Octez computes for this pair of peers; the chain becomes active", async ({ w }) => {
  const a = new Peer(1);
  await w.ask(a, { kind: "Get_current_branch", chain_id: CHAIN });
  const [answer, ...rest] = a.take();
  assert.equal(rest, []);
  assert.is(answer!.kind, "Current_branch");
  const { chain_id, locator } = answer as Extract<ChainMessage, { kind: "Current_branch" }>;
  assert.is(chain_id, CHAIN);
  const { hash: headHash, ...headHeader } = w.head;
  assert.equal(locator.current_head, headHeader);
  const steps = octezSteps(SELF, a.peerId, headHash, 200);
  // ten steps of 1, then ten of 2 ± 1: what Octez's generator gives for this seed
  assert.equal(steps.slice(0, 10), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  assert.ok(steps.slice(10, 20).every((s) => s >= 1 && s <= 3));
  assert.equal(locator.history, octezHistory(w.hashes, w.head.level, steps));
  assert.is(locator.history.at(-1), w.hashes[0], "the walk ends at genesis");
  // the receiver's check (Block_locator.to_steps): each step is the distance, the last at most it
  const chainOf = [headHash, ...locator.history];
  const levelOf = (h: string) => w.hashes.indexOf(h);
  for (let i = 0; i + 1 < chainOf.length; i++) {
    const d = levelOf(chainOf[i]!) - levelOf(chainOf[i + 1]!);
    if (i + 2 < chainOf.length) assert.is(d, steps[i], `step ${i}`);
    else assert.ok(d <= steps[i]!, `last step ${i}`);
  }
  // the library's generator is Octez's for another seed too
  const next = locatorSteps({ sender: a.peerId, receiver: SELF }, w.hashes[5]!);
  assert.equal(Array.from({ length: 60 }, next), octezSteps(a.peerId, SELF, w.hashes[5]!, 60));
  // another peer gets another locator of the same head
  const b = new Peer(2);
  await w.ask(b, { kind: "Get_current_branch", chain_id: CHAIN });
  const other = (b.take()[0] as Extract<ChainMessage, { kind: "Current_branch" }>).locator.history;
  assert.equal(other, octezHistory(w.hashes, w.head.level, octezSteps(SELF, b.peerId, headHash, 200)));
  assert.equal([a.metadata.requests.received.branch, a.metadata.responses.sent.branch], [1, 1]);
});

t("Get_current_head: only once the peer activated the chain; the head's header and the mempool (known valid: the applied operations), empty for a peer without mempool", async ({ w }) => {
  const a = new Peer(3);
  await w.ask(a, { kind: "Get_current_head", chain_id: CHAIN });
  assert.equal([a.take(), a.metadata.inactive_chains, a.metadata.requests.received.head], [[], 1, 0]);
  await w.ask(a, { kind: "Get_current_branch", chain_id: CHAIN });
  a.take();
  await w.ask(a, { kind: "Get_current_head", chain_id: CHAIN });
  const { hash: _, ...headHeader } = w.head;
  assert.equal(a.take(), [{ kind: "Current_head", chain_id: CHAIN, header: headHeader, mempool: { known_valid: [w.pending.hash], pending: [] } }]);
  assert.equal([a.metadata.requests.received.head, a.metadata.responses.sent.head], [1, 1]);

  const quiet = new Peer(4, true);
  await w.ask(quiet, { kind: "Get_current_branch", chain_id: CHAIN });
  quiet.take();
  await w.ask(quiet, { kind: "Get_current_head", chain_id: CHAIN });
  assert.equal((quiet.take()[0] as Extract<ChainMessage, { kind: "Current_head" }>).mempool, { known_valid: [], pending: [] });

  // Deactivate: the chain is no longer active for that peer
  await w.ask(a, { kind: "Deactivate", chain_id: CHAIN });
  await w.ask(a, { kind: "Get_current_head", chain_id: CHAIN });
  assert.equal([a.take(), a.metadata.inactive_chains], [[], 2]);
});

t("requests about another chain are dropped (and counted as requests)", async ({ w }) => {
  const a = new Peer(5);
  await w.ask(a, { kind: "Get_current_branch", chain_id: OTHER_CHAIN });
  await w.ask(a, { kind: "Get_checkpoint", chain_id: OTHER_CHAIN });
  await w.ask(a, { kind: "Get_protocol_branch", chain_id: OTHER_CHAIN, proto_level: 1 });
  await w.ask(a, { kind: "Get_current_head", chain_id: OTHER_CHAIN });
  assert.equal(a.take(), []);
  const m = a.metadata;
  assert.equal([m.requests.received.branch, m.requests.received.checkpoint, m.requests.received.protocol_branch, m.inactive_chains], [1, 1, 1, 1]);
  assert.equal(m.responses.sent, emptyPeerMetadata().responses.sent);
});

t("Get_block_headers: one Block_header per known block (side blocks included), unknown ones counted as unadvertised", async ({ w }) => {
  const a = new Peer(6);
  await w.ask(a, { kind: "Get_block_headers", hashes: [w.hashes[2]!, UNKNOWN_BLOCK, w.withTransfer.hash] });
  const level2 = await header(w.node, w.hashes[2]!);
  const withTransfer = await header(w.node, w.withTransfer.hash);
  const strip = ({ hash: _, ...h }: RawBlockHeader & { hash: string }) => h;
  assert.equal(a.take(), [
    { kind: "Block_header", header: strip(level2) },
    { kind: "Block_header", header: strip(withTransfer) },
  ]);
  assert.equal([a.metadata.requests.received.block_header, a.metadata.responses.sent.block_header, a.metadata.unadvertised.block], [1, 2, 1]);
});

t("Get_operations: the operations the node propagates (the mempool's), not those of blocks", async ({ w }) => {
  const a = new Peer(7);
  await w.ask(a, { kind: "Get_operations", hashes: [w.pending.hash, w.baked.hash, UNKNOWN_OPERATION] });
  const got = a.take();
  assert.equal(got, [{ kind: "Operation", operation: decodeBinary(rawOperation, w.pending.bytes) }]);
  assert.equal(encodeBinary(rawOperation, (got[0] as Extract<ChainMessage, { kind: "Operation" }>).operation), w.pending.bytes);
  assert.equal([a.metadata.requests.received.operations, a.metadata.responses.sent.operations, a.metadata.unadvertised.operations], [1, 1, 2]);
});

t("Get_protocols: protocols whose record hashes to their name (Hangzhou; not the genesis protocol, whose sources hash otherwise)", async ({ w }) => {
  const a = new Peer(8);
  await w.ask(a, { kind: "Get_protocols", hashes: [HANGZHOU, GENESIS_PROTOCOL, UNKNOWN_PROTOCOL] });
  const got = a.take();
  assert.is(got.length, 1);
  const record = (got[0] as Extract<ChainMessage, { kind: "Protocol" }>).protocol;
  assert.is(b58encode(B58.protocolHash, blake2b256(encodeBinary(protocolRecord, record))), HANGZHOU);
  assert.equal([a.metadata.requests.received.protocols, a.metadata.responses.sent.protocols, a.metadata.unadvertised.protocol], [1, 1, 2]);
});

t("Get_operations_for_blocks: each known pass with its operations and a Merkle path that Octez's check_path leads to the header's operations_hash", async ({ w }) => {
  const a = new Peer(9);
  const block = w.withTransfer.hash;
  await w.ask(a, {
    kind: "Get_operations_for_blocks",
    blocks: [
      { hash: block, validation_pass: 3 },
      { hash: block, validation_pass: 0 },
      { hash: block, validation_pass: 4 }, // no such pass: dropped (Octez's reader would raise)
      { hash: UNKNOWN_BLOCK, validation_pass: 0 },
      { hash: w.hashes[1]!, validation_pass: 0 }, // the activation block has no pass
    ],
  });
  const got = a.take() as Extract<ChainMessage, { kind: "Operations_for_blocks" }>[];
  assert.equal(got.map((m) => [m.hash, m.validation_pass]), [[block, 3], [block, 0]]);
  const h = await header(w.node, block);
  for (const m of got) {
    const ops = m.operations.map((op) => b58encode(B58.operationHash, blake2b256(encodeBinary(rawOperation, op))));
    assert.equal(ops, w.withTransfer.passes[m.validation_pass]);
    const { root, position } = checkPath(m.path, listHashOf(ops));
    assert.is(b58encode(B58.operationListListHash, root), h.operations_hash);
    assert.is(position, m.validation_pass);
  }
  assert.equal(encodeBinary(rawOperation, got[0]!.operations[0]!), w.baked.bytes);
  // four passes: the path of pass 3 is Right(node(L0, L1), Right(L2, leaf)) in Octez's tree
  const leaves = w.withTransfer.passes.map((p) => blake2b256(listHashOf(p)));
  const llo = (b: Uint8Array) => b58encode(B58.operationListListHash, b);
  assert.equal(got[0]!.path, { kind: "Right", left: llo(blake2b256(leaves[0]!, leaves[1]!)), path: { kind: "Right", left: llo(leaves[2]!), path: { kind: "Op" } } });
  assert.equal([a.metadata.requests.received.operations_for_block, a.metadata.responses.sent.operations_for_block], [1, 2]);
});

t("Merkle paths of 1 to 9 lists: check_path gives back the root and the position", () => {
  for (let n = 1; n <= 9; n++) {
    const lists = Array.from({ length: n }, (_, i) => sha256(Uint8Array.of(n, i)));
    // the root as Octez's compute: leaves, levels padded with the padding subtree
    let level = lists.map((l) => blake2b256(l));
    let pad = level[n - 1]!;
    while (level.length > 1) {
      if (level.length % 2 === 1) level.push(pad);
      const up: Uint8Array[] = [];
      for (let i = 0; i < level.length; i += 2) up.push(blake2b256(level[i]!, level[i + 1]!));
      pad = blake2b256(pad, pad);
      level = up;
    }
    for (let i = 0; i < n; i++) {
      const { root, position } = checkPath(operationListPath(lists, i), lists[i]!);
      assert.equal([toHex(root), position], [toHex(level[0]!), i], `${i} of ${n}`);
    }
    assert.throws(() => operationListPath(lists, n), (e: unknown) => e instanceof RangeError);
  }
});

t("Get_checkpoint and Get_predecessor_header", async ({ w }) => {
  const a = new Peer(10);
  await w.ask(a, { kind: "Get_checkpoint", chain_id: CHAIN });
  const checkpoint = (await rpc(w.node, "GET", "/chains/main/checkpoint")) as { block: { level: number } };
  const { hash: _, ...cp } = await header(w.node, String(checkpoint.block.level));
  assert.equal(a.take(), [{ kind: "Checkpoint", chain_id: CHAIN, header: cp }]);
  const { hash: _h, ...five } = await header(w.node, String(w.head.level - 5));
  await w.ask(a, { kind: "Get_predecessor_header", hash: w.head.hash, offset: 5 });
  await w.ask(a, { kind: "Get_predecessor_header", hash: w.head.hash, offset: -1 });
  await w.ask(a, { kind: "Get_predecessor_header", hash: UNKNOWN_BLOCK, offset: 0 });
  assert.equal(a.take(), [{ kind: "Predecessor_header", hash: w.head.hash, offset: 5, header: five }]);
  const m = a.metadata;
  assert.equal([m.requests.received.checkpoint, m.responses.sent.checkpoint, m.requests.received.predecessor_header, m.responses.sent.predecessor_header, m.unadvertised.block], [1, 1, 3, 1, 2]);
});

t("Get_protocol_branch: a locator of the blocks of that protocol level, down to its activation block", async ({ w }) => {
  const a = new Peer(11);
  const headProto = w.head.proto;
  await w.ask(a, { kind: "Get_protocol_branch", chain_id: CHAIN, proto_level: headProto });
  const [answer] = a.take() as Extract<ChainMessage, { kind: "Protocol_branch" }>[];
  assert.ok(answer !== undefined);
  const { hash: headHash, ...headHeader } = w.head;
  assert.equal([answer.chain_id, answer.proto_level, answer.locator.current_head], [CHAIN, headProto, headHeader]);
  // the first block of the head's protocol level: the floor of the walk, as the caboose is for a chain
  const protos: number[] = [];
  for (let l = 0; l <= w.head.level; l++) protos.push((await header(w.node, String(l))).proto);
  const first = protos.indexOf(headProto);
  const steps = octezSteps(SELF, a.peerId, headHash, 200);
  const expected: string[] = [];
  for (let level = w.head.level, i = 0; i < 200; i++) {
    const target = level - steps[i]!;
    if (target < first) {
      if (level !== first) expected.push(w.hashes[first]!);
      break;
    }
    expected.push(w.hashes[target]!);
    level = target;
  }
  assert.equal(answer.locator.history, expected);
  assert.is(answer.locator.history.at(-1), w.hashes[first]);
  // an earlier level: its last block on top; an unknown level: nothing
  await w.ask(a, { kind: "Get_protocol_branch", chain_id: CHAIN, proto_level: protos[0]! });
  const [earlier] = a.take() as Extract<ChainMessage, { kind: "Protocol_branch" }>[];
  const { hash: lastHash, ...last } = await header(w.node, String(first - 1));
  assert.equal(earlier!.locator.current_head, last);
  assert.is(lastHash, w.hashes[first - 1]);
  await w.ask(a, { kind: "Get_protocol_branch", chain_id: CHAIN, proto_level: 200 });
  assert.equal(a.take(), []);
  assert.equal([a.metadata.requests.received.protocol_branch, a.metadata.responses.sent.protocol_branch], [3, 2]);
});

t("what peers send unasked is counted only: unexpected responses, received responses, advertisements, future blocks", async ({ w }) => {
  const a = new Peer(12);
  // the sandbox baker runs ahead of the clock: a header of a minute ago is not a future block
  const { hash: _, ...baked } = w.head;
  const headHeader = { ...baked, timestamp: Math.floor(Date.now() / 1000) - 60 };
  // not active yet: advertisements count as inactive chains
  await w.ask(a, { kind: "Current_head", chain_id: CHAIN, header: headHeader, mempool: { known_valid: [], pending: [] } });
  assert.is(a.metadata.inactive_chains, 1);
  await w.ask(a, { kind: "Get_current_branch", chain_id: CHAIN });
  a.take();
  await w.ask(a, { kind: "Current_head", chain_id: CHAIN, header: headHeader, mempool: { known_valid: [], pending: [] } });
  await w.ask(a, { kind: "Current_branch", chain_id: CHAIN, locator: { current_head: headHeader, history: [] } });
  const future = { ...headHeader, timestamp: Math.floor(Date.now() / 1000) + 3600 };
  await w.ask(a, { kind: "Current_head", chain_id: CHAIN, header: future, mempool: { known_valid: [], pending: [] } });
  await w.ask(a, { kind: "Block_header", header: headHeader });
  await w.ask(a, { kind: "Operation", operation: decodeBinary(rawOperation, w.pending.bytes) });
  await w.ask(a, { kind: "Operations_for_blocks", hash: w.head.hash, validation_pass: 0, path: { kind: "Op" }, operations: [] });
  await w.ask(a, { kind: "Checkpoint", chain_id: CHAIN, header: headHeader });
  await w.ask(a, { kind: "Protocol_branch", chain_id: CHAIN, proto_level: 1, locator: { current_head: headHeader, history: [] } });
  await w.ask(a, { kind: "Predecessor_header", hash: w.head.hash, offset: 1, header: headHeader });
  const record = decodeBinary(protocolRecord, encodeBinary(protocolRecord, { expected_env_version: 3, components: [{ name: "Main", implementation: "let x = ()\n" }] }));
  await w.ask(a, { kind: "Protocol", protocol: record });
  assert.equal(a.take(), []);
  const m = a.metadata;
  // the sandbox's followers take heads from the future its baker runs in (README, Sandbox time):
  // the head an hour ahead is an advertisement, not a future block
  assert.equal(
    [m.advertisements.received, m.future_blocks_advertised, m.responses.unexpected, m.responses.received.checkpoint, m.responses.received.protocol_branch, m.responses.received.predecessor_header, m.responses.received.protocols],
    [{ head: 2, branch: 1 }, 0, 3, 1, 1, 1, 1],
  );
});

t("on a chain other than the sandbox, a head more than 5 s ahead of the clock is a future block (Octez's Clock_drift)", async () => {
  const pool = new HandlerPool();
  const node = await createNode({ bake: { mode: "manual" }, p2p: pool, genesis: { ...SANDBOX_GENESIS, chainName: "TEZOS_TESTNET_2026" } });
  try {
    const a = new Peer(14);
    const chainId = (await rpc(node, "GET", "/chains/main/chain_id")) as string;
    await pool.handler!(a, { kind: "Get_current_branch", chain_id: chainId });
    const { hash: _, ...h } = await header(node, "head");
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now + 3600, now + 60, now - 60]) {
      await pool.handler!(a, { kind: "Current_head", chain_id: chainId, header: { ...h, timestamp }, mempool: { known_valid: [], pending: [] } });
    }
    assert.equal([a.metadata.future_blocks_advertised, a.metadata.advertisements.received.head], [2, 1]);
  } finally {
    await node.close();
  }
});

t("an answer that cannot be sent is counted as failed", async ({ w }) => {
  const a = new Peer(13);
  a.failing = true;
  await w.ask(a, { kind: "Get_current_branch", chain_id: CHAIN });
  await w.ask(a, { kind: "Get_block_headers", hashes: [w.hashes[1]!, w.hashes[2]!] });
  assert.equal([a.metadata.responses.failed.branch, a.metadata.responses.failed.block_header, a.metadata.responses.sent.block_header], [1, 2, 0]);
});

t.run();
