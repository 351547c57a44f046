/**
 * Which runtime this is, and its HTTP adapter, for code that runs everywhere unchanged (tests,
 * benches). Entry points do not need it: each imports its own adapter.
 * @module
 */
import type { Serve } from "./serve.ts";

/** The JavaScript runtime running this code. */
export type RuntimeName = "node" | "deno" | "bun";

/** Names the current runtime. */
export function runtimeName(): RuntimeName {
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  if (g.Bun !== undefined) return "bun";
  if (g.Deno !== undefined) return "deno";
  return "node";
}

/** Loads the HTTP adapter of the current runtime. */
export async function currentServe(): Promise<Serve> {
  switch (runtimeName()) {
    case "bun":
      return (await import("./bun/serve.ts")).serve;
    case "deno":
      return (await import("./deno/serve.ts")).serve;
    default:
      return (await import("./node/serve.ts")).serve;
  }
}
