/**
 * The TCP transport of the current runtime, for code that runs everywhere unchanged (tests, the
 * node's P2P start-up): each runtime's module is imported only on that runtime.
 * @module
 */
import type { Transport } from "../../lib/p2p/transport.ts";
import { runtimeName } from "../current.ts";

/** Loads the {@link Transport} of the current runtime (Node, Deno or Bun). */
export async function currentTransport(): Promise<Transport> {
  switch (runtimeName()) {
    case "bun":
      return (await import("./bun.ts")).transport;
    case "deno":
      return (await import("./deno.ts")).transport;
    default:
      return (await import("./node.ts")).transport;
  }
}
