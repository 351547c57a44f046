/**
 * A minimal Tezos P2P peer for tests, written independently of `lib/p2p` from Octez v12's
 * sources: its own X25519/HSalsa20/XSalsa20-Poly1305 on the noble libraries (`crypto.ts`), proof
 * of work for whole difficulties (`pow.ts`), the few wire formats it speaks (`messages.ts`), a
 * `node:net` connection that runs under Node, Bun and Deno (`socket.ts`), and the peer itself,
 * one handshake step per method so that it can misbehave on purpose (`peer.ts`). Checked against
 * tezedge's vectors and against the repository's `authenticate` in `test/p2p/test-peer.test.ts`.
 *
 * @example
 * ```ts
 * import { makeIdentity, TestPeer } from "../support/p2p-peer/mod.ts";
 * const peer = await TestPeer.dial({ host: "127.0.0.1", port: 19732, identity: makeIdentity(0) });
 * if ((await peer.handshake()).kind === "Ack") await peer.send({ kind: "Bootstrap" });
 * ```
 * @module
 */
export * from "./bytes.ts";
export * from "./crypto.ts";
export * from "./merkle.ts";
export * from "./messages.ts";
export * from "./peer.ts";
export * from "./pow.ts";
export * from "./socket.ts";
