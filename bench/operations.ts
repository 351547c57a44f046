/**
 * Manager operations: signed transfers validated and applied per second inside a block, and the
 * time from `POST /injection/operation` to the operation's block being head in `auto` mode
 * (p50, p99). Runs alone with `npx tsx bench/operations.ts`.
 * @module
 */
import { createNode, type TezosNode } from "../mod.ts";
import { encodeBinary } from "../lib/encoding/codec.ts";
import { toHex } from "../lib/encoding/hex.ts";
import { operation, unsignedOperation } from "../lib/encoding/hangzhou/operation.ts";
import { formatSignature } from "../lib/crypto/keys.ts";
import { get, KEYS, post, SOURCES } from "./support.ts";
import { sign } from "../lib/crypto/sign.ts";
import { genericWatermark } from "../lib/crypto/watermark.ts";

const DESTINATION = "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv";

/** A signed transfer of 1 mutez from source `i` with the given counter, as injection hex. */
async function transfer(branch: string, i: number, counter: bigint): Promise<string> {
  const op = {
    branch,
    contents: [
      { kind: "transaction" as const, source: SOURCES[i]!, fee: 1000n, counter, gas_limit: 1520n, storage_limit: 0n, amount: 1n, destination: DESTINATION },
    ],
  };
  const signature = await sign(KEYS[i]!, encodeBinary(unsignedOperation, op), genericWatermark());
  return toHex(encodeBinary(operation, { ...op, signature: formatSignature(signature) }));
}

async function counters(node: TezosNode): Promise<bigint[]> {
  return Promise.all(SOURCES.map(async (s) => BigInt(await get(node, `/chains/main/blocks/head/context/contracts/${s}/counter`))));
}

/** Transfers per second applied inside a baked block of `n` operations (signatures checked). */
export async function benchBlockApplication(n = 400): Promise<{ n: number; ms: number; perSecond: number }> {
  const node = await createNode({ bake: { mode: "manual" } });
  try {
    const branch = await get(node, "/chains/main/blocks/head/hash");
    const next = await counters(node);
    for (let k = 0; k < n; k++) {
      const i = k % SOURCES.length;
      next[i]! += 1n;
      await post(node, "/injection/operation", await transfer(branch, i, next[i]!));
    }
    const t0 = performance.now();
    const [hash] = await post(node, "/sandbox/bake");
    const ms = performance.now() - t0;
    const included = (await get(node, `/chains/main/blocks/${hash}/operation_hashes/3`)).length;
    if (included !== n) throw new Error(`the block holds ${included} of ${n} transfers`);
    return { n, ms, perSecond: (n / ms) * 1000 };
  } finally {
    await node.close();
  }
}

/** Milliseconds from injection to the operation's block being head, in auto mode. */
export async function benchInjectionToHead(n = 100): Promise<{ p50: number; p99: number }> {
  const node = await createNode({ bake: { mode: "auto" } });
  const times: number[] = [];
  try {
    const heads = (await node.fetch(new Request("http://localhost/monitor/heads/main"))).body!.getReader();
    await heads.read();
    const decoder = new TextDecoder();
    for (let k = 0; k < n; k++) {
      const branch = await get(node, "/chains/main/blocks/head~2/hash");
      const i = k % SOURCES.length;
      const counter = (await counters(node))[i]! + 1n;
      const hex = await transfer(branch, i, counter);
      const t0 = performance.now();
      const oph = await post(node, "/injection/operation", hex);
      for (;;) {
        const { value } = await heads.read();
        const head = JSON.parse(decoder.decode(value));
        const hashes: string[] = await get(node, `/chains/main/blocks/${head.hash}/operation_hashes/3`);
        if (hashes.includes(oph)) break;
      }
      times.push(performance.now() - t0);
    }
    await heads.cancel();
  } finally {
    await node.close();
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! };
}

/** Prints both measurements. */
export async function benchOperations(): Promise<void> {
  const app = await benchBlockApplication();
  console.log(`block of ${app.n} signed transfers: baked and applied in ${app.ms.toFixed(0)} ms, ${app.perSecond.toFixed(0)} transfers/s`);
  const lat = await benchInjectionToHead();
  console.log(`injection -> head (auto mode): p50 ${lat.p50.toFixed(1)} ms, p99 ${lat.p99.toFixed(1)} ms`);
}

if (import.meta.main ?? import.meta.url === `file://${process.argv[1]}`) await benchOperations();
