/**
 * What the benches share: bootstrap1..4 as signing sources, JSON calls to the node's fetch handler
 * that fail loudly on a non-200 answer, and a seeded random source for states built the same each run.
 * @module
 */
import { bootstrapSecretKeys } from "../lib/baker/keys.ts";
import { formatPublicKeyHash, publicKeyHash, publicKeyOf } from "../lib/crypto/keys.ts";
import type { TezosNode } from "../mod.ts";

/** bootstrap1..4's secret keys (bootstrap5 bakes nothing special; four sources are enough). */
export const KEYS = bootstrapSecretKeys().slice(0, 4);
/** Their `tz1…` addresses. */
export const SOURCES: readonly string[] = KEYS.map((k) => formatPublicKeyHash(publicKeyHash(publicKeyOf(k))));

/** GET `path` as JSON; throws on any status but 200. */
export async function get(node: TezosNode, path: string): Promise<any> {
  return answer(path, await node.fetch(new Request(`http://localhost${path}`)));
}

/** POST `body` (JSON, or none) to `path`; the answer as JSON; throws on any status but 200. */
export async function post(node: TezosNode, path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method: "POST" };
  if (body !== undefined) Object.assign(init, { headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return answer(path, await node.fetch(new Request(`http://localhost${path}`, init)));
}

async function answer(path: string, res: Response): Promise<any> {
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json).slice(0, 2000)}`);
  return json;
}

/** Deterministic xorshift32, so every run benches the same state. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}
