/**
 * The P2P layer, Octez v12's protocol byte for byte: identities and proof of work
 * (`identity.ts`), the connection cryptography (`crypto.ts`), the wire formats
 * (`encoding/`), network versions (`version.ts`) and the authenticated, encrypted connection
 * (`socket.ts`) over the runtime's TCP (`transport.ts`, given by `platform/`).
 *
 * @example
 * ```ts
 * import { authenticate, generateIdentity } from "./mod.ts";
 * const identity = await generateIdentity(26);
 * const result = await authenticate({ connection, incoming: true, identity,
 *   chainName: "SANDBOXED_TEZOS", powTarget: 26, announcedPort: 9732 });
 * if (result.ok) await result.channel.writeMessage({ kind: "Bootstrap" });
 * ```
 * @module
 */
export * from "./crypto.ts";
export * from "./encoding/mod.ts";
export * from "./errors.ts";
export * from "./identity.ts";
export * from "./socket.ts";
export type { ConnectOptions, Connection, Endpoint, Listener, Transport } from "./transport.ts";
export * from "./version.ts";
export { Wire } from "./wire.ts";
