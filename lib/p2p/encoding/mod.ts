/**
 * The wire formats of Octez v12's P2P layer, each in its own file: the connection message,
 * metadata and Ack/Nack of the handshake; points; the P2P messages and their frame; the
 * distributed DB messages with the block locator, the gossiped mempool and the Merkle path of
 * operation lists; Octez's bounds.
 *
 * @example
 * ```ts
 * import { encodeMessage, decodeMessage } from "./mod.ts";
 * const frame = encodeMessage({ kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" });
 * decodeMessage(frame); // { kind: "Get_current_head", chain_id: "NetXdQprcVkpaWU" }
 * ```
 * @module
 */
export * from "./ack.ts";
export * from "./bounds.ts";
export * from "./chain-messages.ts";
export * from "./connection.ts";
export * from "./locator.ts";
export * from "./mempool.ts";
export * from "./operation-path.ts";
export * from "./p2p-message.ts";
export * from "./point.ts";
