/**
 * The P2P pool, Octez v12's `P2p` (pool, connect handler, maintenance, ACL, protocol, stats):
 * {@link createPool} gives a {@link P2pPool} (see `./api.ts`).
 *
 * @example
 * ```ts
 * const pool = await createPool({ transport, identity, chainName: "SANDBOXED_TEZOS",
 *   listen: { host: "127.0.0.1", port: 9732 }, expectedPow: 26, bootstrapPeers: ["127.0.0.2:9732"],
 *   privateMode: false, limits: limitsForConnections(50) });
 * pool.setChainMessageHandler((from, message) => console.log(from.peerId, message.kind));
 * await pool.start();
 * ```
 * @module
 */
export type * from "./api.ts";
export { createPool } from "./pool.ts";
export { DEFAULT_TUNING, limitsForConnections, type PoolTuning, type ReconnectionConfig } from "./limits.ts";
export * from "./errors.ts";
