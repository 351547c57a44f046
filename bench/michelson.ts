/**
 * Michelson: (1) interpreter instructions per second on a loop-heavy script (the sum of i² for
 * i = N…1 with a `LOOP`), next to a plain TypeScript loop doing the same bigint arithmetic in the
 * same run, with the ratio; (2) the cost of a call reading one key of a big map holding 10,000
 * entries, next to the same call on a 10-entry big map (time per `run_operation`, and the store
 * reads of a cold node), which should be about the same: a call must not load the whole map.
 * Runs alone with `npx tsx bench/michelson.ts [iterations]`.
 * @module
 */
import type { Micheline } from "../lib/encoding/micheline.ts";
import type { ScriptContext } from "../lib/michelson/context.ts";
import { parseScript } from "../lib/michelson/script/script.ts";
import { execute } from "../lib/michelson/script/execute.ts";
import type { Tracer } from "../lib/michelson/script/machine.ts";
import { createNode, type KeyValueStore, type RangeOptions, type TezosNode, type WriteOp } from "../mod.ts";
import { MemoryStore } from "../lib/store/memory.ts";
import { encodeBinary } from "../lib/encoding/codec.ts";
import { toHex } from "../lib/encoding/hex.ts";
import { operation, unsignedOperation, type Origination, type Transaction } from "../lib/encoding/hangzhou/operation.ts";
import { formatSignature } from "../lib/crypto/keys.ts";
import { get, KEYS, post, SOURCES } from "./support.ts";
import { sign } from "../lib/crypto/sign.ts";
import { genericWatermark } from "../lib/crypto/watermark.ts";

// ---------------------------------------------------------------------------------------------
// (1) Interpreter throughput

const prim = (name: string, ...args: Micheline[]): Micheline => (args.length === 0 ? { prim: name } : { prim: name, args });
const int = (n: number | bigint): Micheline => ({ int: String(n) });
const nat0 = prim("PUSH", prim("nat"), int(0));

/**
 * parameter nat; storage int; the storage becomes Σ i² for i = parameter…1:
 * `UNPAIR; DUP; PUSH nat 0; COMPARE; LT; LOOP { DUP; DUP; MUL; INT; DIG 2; ADD; SWAP; PUSH nat 1;
 * SWAP; SUB; ABS; DUP; PUSH nat 0; COMPARE; LT }; DROP; NIL operation; PAIR` — 15 instructions
 * and the `LOOP` per iteration, integer arithmetic and stack moves only.
 */
export const SUM_OF_SQUARES: Micheline = [
  prim("parameter", prim("nat")),
  prim("storage", prim("int")),
  prim("code", [
    prim("UNPAIR"),
    prim("DUP"), nat0, prim("COMPARE"), prim("LT"),
    prim("LOOP", [
      prim("DUP"), prim("DUP"), prim("MUL"), prim("INT"),
      prim("DIG", int(2)), prim("ADD"), prim("SWAP"),
      prim("PUSH", prim("nat"), int(1)), prim("SWAP"), prim("SUB"), prim("ABS"),
      prim("DUP"), nat0, prim("COMPARE"), prim("LT"),
    ]),
    prim("DROP"), prim("NIL", prim("operation")), prim("PAIR"),
  ]),
];

/** The same computation in plain TypeScript, on bigints as Michelson's int and nat. */
export function sumOfSquares(n: bigint): bigint {
  let acc = 0n;
  while (0n < n) {
    acc += n * n;
    n = n - 1n;
  }
  return acc;
}

/** A gas meter that never runs out; counts what was consumed. */
class UnlimitedGas {
  consumed = 0;
  consume(milligas: number): void {
    this.consumed += milligas;
  }
  remaining(): number {
    return Number.MAX_SAFE_INTEGER - this.consumed;
  }
}

/** A script context for a standalone run: no chain behind it (the script reads nothing). */
function standaloneContext(gas: UnlimitedGas): ScriptContext {
  const none = (): never => {
    throw new Error("the bench script does not use the chain");
  };
  return {
    gas,
    legacy: false,
    self: "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi",
    sender: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
    source: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
    amount: 0n,
    balanceOf: () => 0n,
    now: 1_600_000_000n,
    level: 1n,
    chainId: "NetXdQprcVkpaWU",
    contractParameterType: () => undefined,
    bigMapTypes: () => undefined,
    bigMapGet: () => undefined,
    bigMapMem: () => false,
    contractScript: () => undefined,
    globalConstant: () => undefined,
    votingPower: () => 0n,
    totalVotingPower: () => 0n,
    freshInternalNonce: none,
    freshContractAddress: none,
    freshTemporaryBigMapId: none,
  };
}

/** Figures of the interpreter bench. */
export interface InterpreterFigures {
  iterations: number;
  /** Instructions executed per run (counted by the tracer in one traced run). */
  instructions: number;
  /** Milligas the run consumed (typechecking included). */
  milligas: number;
  /** Best time of a run (parse + execute), ms. */
  interpreterMs: number;
  /** Best time of the plain TypeScript loop, ms. */
  plainMs: number;
}

/** Runs the sum of squares `iterations` times through the interpreter and as plain TypeScript, best of `rounds`. */
export async function benchInterpreter(iterations = 100_000, rounds = 3): Promise<InterpreterFigures> {
  const n = BigInt(iterations);
  const expected = sumOfSquares(n);
  const run = (tracer?: Tracer) => {
    const gas = new UnlimitedGas();
    const ctx = standaloneContext(gas);
    const script = parseScript(ctx, SUM_OF_SQUARES);
    const result = execute(ctx, script, { entrypoint: "default", parameter: int(n), storage: int(0) }, tracer);
    if (result.storage !== expected) throw new Error(`the interpreter answered ${String(result.storage)}, not ${expected}`);
    return gas.consumed;
  };

  let instructions = 0;
  const milligas = run(() => void instructions++);
  run(); // warm-up
  sumOfSquares(n);

  let interpreterMs = Infinity;
  let plainMs = Infinity;
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    run();
    interpreterMs = Math.min(interpreterMs, performance.now() - t0);
    t0 = performance.now();
    if (sumOfSquares(n) !== expected) throw new Error("plain loop");
    plainMs = Math.min(plainMs, performance.now() - t0);
  }
  return { iterations, instructions, milligas, interpreterMs, plainMs };
}

// ---------------------------------------------------------------------------------------------
// (2) A call on a big map of 10,000 entries, through the node

/**
 * parameter (or (pair %fill nat nat) (nat %get)); storage (pair (big_map nat nat) (option nat)).
 * `fill (start, count)` binds k → k for k in start…start+count−1; `get k` stores the map's value
 * at k (an option) beside the map: one big map read.
 */
export const BIG_MAP_STORE: Micheline = [
  prim("parameter", prim("or", { prim: "pair", args: [prim("nat"), prim("nat")], annots: ["%fill"] }, { prim: "nat", annots: ["%get"] })),
  prim("storage", prim("pair", prim("big_map", prim("nat"), prim("nat")), prim("option", prim("nat")))),
  prim("code", [
    prim("UNPAIR"),
    prim("IF_LEFT",
      [
        prim("UNPAIR"), prim("DIG", int(2)), prim("UNPAIR"), prim("DIG", int(3)),
        prim("DUP"), nat0, prim("COMPARE"), prim("LT"),
        prim("LOOP", [
          prim("PUSH", prim("nat"), int(1)), prim("SWAP"), prim("SUB"), prim("ABS"), prim("SWAP"),
          prim("DIG", int(3)), prim("DUP"), prim("DUG", int(4)),
          prim("DUP"), prim("SOME"), prim("SWAP"), prim("UPDATE"),
          prim("DIG", int(3)), prim("PUSH", prim("nat"), int(1)), prim("ADD"), prim("DUG", int(3)),
          prim("SWAP"), prim("DUP"), nat0, prim("COMPARE"), prim("LT"),
        ]),
        prim("DROP"), prim("DIG", int(2)), prim("DROP"),
        prim("PAIR"), prim("NIL", prim("operation")), prim("PAIR"),
      ],
      [
        prim("SWAP"), prim("CAR"), prim("DUP"), prim("DIG", int(2)), prim("GET"),
        prim("SWAP"), prim("PAIR"), prim("NIL", prim("operation")), prim("PAIR"),
      ],
    ),
  ]),
];

const STUB_SIGNATURE = "edsigtkpiSSschcaCt9pUVrpNPf7TTcgvgDEDD6NCEHMy8NNQJCGnMfLZzYoQj74yLjo9wx6MPVV29CvVzgi7qEcEUok3k7AuMg";
/** Hangzhou's hard limits per operation: 1,040,000 gas, 60,000 bytes. */
const GAS_LIMIT = 1_040_000n;
const STORAGE_LIMIT = 60_000n;
/** Entries added per `fill` call: about 70 bytes each stays under the storage limit. */
const FILL_CHUNK = 500;

/** A store that counts the reads going through it; `close` leaves the inner store open for a reopening. */
class CountingStore implements KeyValueStore {
  gets = 0;
  entries = 0;
  bytes = 0;
  /** Bytes of the values written (not reset). */
  written = 0;
  readonly inner: KeyValueStore;
  constructor(inner: KeyValueStore) {
    this.inner = inner;
  }
  get(key: Uint8Array): Uint8Array | undefined {
    const value = this.inner.get(key);
    this.gets++;
    this.bytes += value?.length ?? 0;
    return value;
  }
  *range(options: RangeOptions): Iterable<[Uint8Array, Uint8Array]> {
    for (const entry of this.inner.range(options)) {
      this.entries++;
      this.bytes += entry[1].length;
      yield entry;
    }
  }
  write(ops: readonly WriteOp[]): Promise<void> {
    for (const op of ops) this.written += op.value?.length ?? 0;
    return this.inner.write(ops);
  }
  async close(): Promise<void> {}
  reset(): void {
    this.gets = this.entries = this.bytes = 0;
  }
}

type Content = Origination | Transaction;

/** Signs and injects one manager operation of source `i`. */
async function inject(node: TezosNode, i: number, content: Content): Promise<string> {
  const op = { branch: await get(node, "/chains/main/blocks/head/hash"), contents: [content] };
  const signature = await sign(KEYS[i]!, encodeBinary(unsignedOperation, op), genericWatermark());
  return post(node, "/injection/operation", toHex(encodeBinary(operation, { ...op, signature: formatSignature(signature) })));
}

/** Bakes one block and answers the manager operation results of `hashes` in it (throws on a failed one). */
async function bake(node: TezosNode, hashes: readonly string[]): Promise<any[]> {
  const [block] = await post(node, "/sandbox/bake");
  const managers: any[] = await get(node, `/chains/main/blocks/${block}/operations/3`);
  return hashes.map((hash) => {
    const op = managers.find((o) => o.hash === hash);
    if (op === undefined) throw new Error(`operation ${hash} is not in block ${block}`);
    const result = op.contents[0].metadata.operation_result;
    if (result.status !== "applied") throw new Error(`operation ${hash}: ${JSON.stringify(result).slice(0, 2000)}`);
    return result;
  });
}

/** Counters of the sources, advanced locally as operations are injected. */
async function counters(node: TezosNode): Promise<bigint[]> {
  return Promise.all(SOURCES.map(async (s) => BigInt(await get(node, `/chains/main/blocks/head/context/contracts/${s}/counter`))));
}

const manager = (i: number, counter: bigint) => ({
  source: SOURCES[i]!, fee: 200_000n, counter, gas_limit: GAS_LIMIT, storage_limit: STORAGE_LIMIT,
});

/** Originates the big map contract and fills it with `entries` keys; answers its KT1. */
async function prepareContract(node: TezosNode, entries: number): Promise<string> {
  const next = await counters(node);
  const hash = await inject(node, 0, {
    kind: "origination", ...manager(0, ++next[0]!), balance: 0n,
    script: { code: BIG_MAP_STORE, storage: prim("Pair", [], prim("None")) },
  });
  const [origination] = await bake(node, [hash]);
  const address: string = origination.originated_contracts[0];
  // Four calls per block (one per source) stay under the block's gas limit of 5,200,000.
  for (let start = 0; start < entries; ) {
    const hashes: string[] = [];
    for (let i = 0; i < SOURCES.length && start < entries; i++) {
      const count = Math.min(FILL_CHUNK, entries - start);
      hashes.push(await inject(node, i, {
        kind: "transaction", ...manager(i, ++next[i]!), amount: 0n, destination: address,
        parameters: { entrypoint: "fill", value: prim("Pair", int(start), int(count)) },
      }));
      start += count;
    }
    await bake(node, hashes);
  }
  return address;
}

/** `run_operation` of `get key` on `address` from source 0, checking the answer. */
async function runGet(node: TezosNode, address: string, key: number, chainId: string, branch: string, counter: bigint): Promise<void> {
  const contents = [{
    kind: "transaction", source: SOURCES[0], fee: "0", counter: String(counter), gas_limit: String(GAS_LIMIT),
    storage_limit: String(STORAGE_LIMIT), amount: "0", destination: address,
    parameters: { entrypoint: "get", value: int(key) },
  }];
  const answer = await post(node, "/chains/main/blocks/head/helpers/scripts/run_operation", {
    operation: { branch, contents, signature: STUB_SIGNATURE },
    chain_id: chainId,
  });
  const result = answer.contents[0].metadata.operation_result;
  const found = result.storage?.args?.[1]?.args?.[0]?.int;
  if (result.status !== "applied" || found !== String(key)) {
    throw new Error(`get ${key} on ${address}: ${JSON.stringify(result).slice(0, 2000)}`);
  }
}

/** A plain transfer through `run_operation`, to load what every simulation needs before counting reads. */
async function runTransfer(node: TezosNode, chainId: string, branch: string, counter: bigint): Promise<void> {
  const contents = [{
    kind: "transaction", source: SOURCES[0], fee: "0", counter: String(counter), gas_limit: "10000",
    storage_limit: "0", amount: "1", destination: SOURCES[1],
  }];
  await post(node, "/chains/main/blocks/head/helpers/scripts/run_operation", { operation: { branch, contents, signature: STUB_SIGNATURE }, chain_id: chainId });
}

/** Figures of one contract in the big map bench. */
export interface BigMapFigures {
  entries: number;
  /** Best mean time of one `run_operation` call of `get`, ms. */
  callMs: number;
  /** Store reads of one call on a freshly opened node: gets, range entries, bytes. */
  cold: { gets: number; entries: number; bytes: number };
  /** Bytes the store took while the contract was originated and filled (blocks included). */
  written: number;
}

/** One contract with `large` entries and one with `small`, the same `get` call timed on each, best of `rounds`. */
export async function benchBigMap(large = 10_000, small = 10, calls = 200, rounds = 3): Promise<BigMapFigures[]> {
  const store = new CountingStore(new MemoryStore());
  let node = await createNode({ store, bake: { mode: "manual" } });
  try {
    const t0 = performance.now();
    const addresses: string[] = [];
    const written: number[] = [];
    for (const entries of [large, small]) {
      const before = store.written;
      addresses.push(await prepareContract(node, entries));
      written.push(store.written - before);
    }
    const sizes = [large, small];
    console.log(`  (big maps of ${large} and ${small} entries originated and filled in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

    const chainId: string = await get(node, "/chains/main/chain_id");
    const branch: string = await get(node, "/chains/main/blocks/head/hash");
    const counter = (await counters(node))[0]! + 1n;
    const best = [Infinity, Infinity];
    for (let c = 0; c < 20; c++) for (const [j, address] of addresses.entries()) await runGet(node, address, c % sizes[j]!, chainId, branch, counter);
    for (let r = 0; r < rounds; r++) {
      for (const [j, address] of addresses.entries()) {
        const start = performance.now();
        for (let c = 0; c < calls; c++) await runGet(node, address, (c * 7919) % sizes[j]!, chainId, branch, counter);
        best[j] = Math.min(best[j]!, (performance.now() - start) / calls);
      }
    }

    // Cold: a node opened afresh on the same store, warmed by a plain transfer, then one call.
    const cold: BigMapFigures["cold"][] = [];
    for (const [j, address] of addresses.entries()) {
      await node.close();
      node = await createNode({ store, bake: { mode: "manual" } });
      await runTransfer(node, chainId, branch, counter);
      store.reset();
      await runGet(node, address, sizes[j]! - 1, chainId, branch, counter);
      cold.push({ gets: store.gets, entries: store.entries, bytes: store.bytes });
    }
    return sizes.map((entries, j) => ({ entries, callMs: best[j]!, cold: cold[j]!, written: written[j]! }));
  } finally {
    await node.close();
    await store.inner.close();
  }
}

// ---------------------------------------------------------------------------------------------

/** Prints both measurements. */
export async function benchMichelson(iterations = 100_000): Promise<void> {
  await printInterpreter(iterations);
  await printBigMap();
}

async function printInterpreter(iterations: number): Promise<void> {
  const loop = await benchInterpreter(iterations);
  const perSecond = (loop.instructions / loop.interpreterMs) * 1000;
  console.log(`sum of i² for i = ${loop.iterations}…1: ${loop.instructions} instructions, ${(loop.milligas / 1000).toFixed(0)} gas`);
  console.log("| loop | ms | per iteration | instructions/s |");
  console.log("|---|---|---|---|");
  console.log(`| interpreter | ${loop.interpreterMs.toFixed(1)} | ${((loop.interpreterMs * 1e6) / loop.iterations).toFixed(0)} ns | ${(perSecond / 1e6).toFixed(2)} M |`);
  console.log(`| plain TypeScript (bigint) | ${loop.plainMs.toFixed(1)} | ${((loop.plainMs * 1e6) / loop.iterations).toFixed(0)} ns | - |`);
  console.log(`interpreter/plain time: ${(loop.interpreterMs / loop.plainMs).toFixed(1)}x`);
}

async function printBigMap(): Promise<void> {
  const maps = await benchBigMap();
  console.log("\n| big map entries | run_operation of get, ms | cold call reads: gets | range entries | bytes | bytes written to build it |");
  console.log("|---|---|---|---|---|---|");
  for (const m of maps) {
    console.log(`| ${m.entries} | ${m.callMs.toFixed(3)} | ${m.cold.gets} | ${m.cold.entries} | ${m.cold.bytes} | ${m.written} |`);
  }
  const [large, small] = maps as [BigMapFigures, BigMapFigures];
  console.log(
    `${large.entries}/${small.entries} entries: time per call ratio ${(large.callMs / small.callMs).toFixed(2)} (about 1 when a call does not load the map); ` +
      `the cold call on ${large.entries} entries read ${large.cold.bytes} of the ${large.written} bytes written to build it`,
  );
}

if (import.meta.main ?? import.meta.url === `file://${process.argv[1]}`) {
  await benchMichelson(process.argv[2] === undefined ? undefined : Number(process.argv[2]));
}
