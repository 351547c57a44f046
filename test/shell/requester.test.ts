/**
 * The distributed DB's requester against a peer that answers, one that lies about what it sends,
 * one that stays silent and one that goes away: answers matched by hash (a header's own hash,
 * not what the peer claims), ten hashes a message, counts in the peer's metadata, a silent
 * peer's request failing after its timeout, a departed peer's at once.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import type { RawBlockHeader } from "../../lib/encoding/block-header.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { rawOperation } from "../../lib/encoding/operation.ts";
import { hashOperation } from "../../lib/shell/operations.ts";
import type { ChainMessage } from "../../lib/p2p/encoding/chain-messages.ts";
import type { PeerLink, PeerMetadata } from "../../lib/p2p/pool/api.ts";
import { emptyPeerMetadata } from "../../lib/p2p/pool/peers.ts";
import { fetchedHeader, PeerGone, Requester, RequestTimeout } from "../../lib/shell/distributed-db/requester.ts";

/** A peer that keeps what it is sent. */
class Peer implements PeerLink {
  readonly peerId = "idrS8zHn7JAwSemDd4FJVo6LirWuHm";
  readonly disableMempool = false;
  readonly metadata: PeerMetadata = emptyPeerMetadata();
  readonly sent: ChainMessage[] = [];
  async send(m: ChainMessage): Promise<void> {
    this.sent.push(m);
  }
  async greylist(): Promise<void> {}
}

function header(level: number): RawBlockHeader {
  return {
    level,
    proto: 1,
    predecessor: b58encode(B58.blockHash, new Uint8Array(32).fill(level)),
    timestamp: 1_600_000_000 + level,
    validation_pass: 4,
    operations_hash: b58encode(B58.operationListListHash, new Uint8Array(32)),
    fitness: [Uint8Array.of(1), Uint8Array.of(0, 0, 0, level)],
    context: b58encode(B58.contextHash, new Uint8Array(32)),
    protocol_data: Uint8Array.of(level),
  };
}

test("headers are matched by their own hash, asked ten a message, and counted", async () => {
  const r = new Requester();
  const peer = new Peer();
  const headers = Array.from({ length: 12 }, (_, i) => fetchedHeader(header(i + 1)));
  const answer = r.blockHeaders(peer, headers.map((h) => h.hash));
  assert.equal(peer.sent.map((m) => (m as { hashes: string[] }).hashes.length), [10, 2]);
  await Promise.resolve();
  assert.is(peer.metadata.requests.sent.block_header, 2);
  // the answers in another order; a header nobody asked for is not taken
  assert.is(r.receive(peer, { kind: "Block_header", header: header(99) }), false);
  for (const h of [...headers].reverse()) assert.ok(r.receive(peer, { kind: "Block_header", header: h.header }));
  assert.equal((await answer).map((h) => h.hash), headers.map((h) => h.hash));
  assert.is(peer.metadata.responses.received.block_header, 12);
  assert.equal(r.stats(), { blockHeaders: 0, operations: 0, operation: 0 });
});

test("a silent peer's request fails after its timeout; a departed peer's at once; the tables empty", async () => {
  const r = new Requester({ header: 30, operations: 30 });
  const peer = new Peer();
  const silent = r.predecessorHeader(peer, fetchedHeader(header(5)).hash, 1);
  assert.equal(r.stats().blockHeaders, 1);
  const e = await silent.catch((x: unknown) => x);
  assert.instance(e, RequestTimeout);
  const gone = r.blockOperations(peer, fetchedHeader(header(6)).hash, 4);
  assert.equal(r.stats().operations, 4);
  r.peerGone(peer);
  assert.instance(await gone.catch((x: unknown) => x), PeerGone);
  // operations: one the peer sends (matched by the hash of its bytes), one it never does
  const op = { branch: fetchedHeader(header(7)).hash, data: Uint8Array.of(1, 2, 3) };
  const wanted = [hashOperation(encodeBinary(rawOperation, op)), b58encode(B58.operationHash, new Uint8Array(32).fill(2))];
  const ops = r.operations(peer, wanted);
  assert.ok(r.receive(peer, { kind: "Operation", operation: op }));
  const got = await ops;
  assert.equal(got[0]!.subarray(32), Uint8Array.of(1, 2, 3));
  assert.is(got[1], undefined);
  assert.equal(r.stats(), { blockHeaders: 0, operations: 0, operation: 0 });
});

test.run();
