/**
 * Helpers of the snapshot tests: a chain with transfers and an origination made through any RPC
 * endpoint (an in-process node or a node process), and the RPCs sampled to compare two nodes.
 */
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { BOOTSTRAP } from "../support/fuzz.ts";

/** Sends a request to a node; `fetch` of a process or `node.fetch`. */
export type Rpc = (request: Request) => Promise<Response>;

/** The JSON answer of `path`, failing on any status but 200. */
export async function call(rpc: Rpc, path: string, method = "GET", body?: unknown): Promise<unknown> {
  const init: RequestInit = body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = await rpc(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** An RPC endpoint at `base` (a node process). */
export function httpRpc(base: string): Rpc {
  return (request) => {
    const url = new URL(request.url);
    return fetch(new Request(`${base}${url.pathname}${url.search}`, request));
  };
}

const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const fromHex = (h: string) => new Uint8Array(h.match(/../g)!.map((x) => parseInt(x, 16)));

async function inject(rpc: Rpc, contents: Record<string, unknown>[]): Promise<string> {
  const head = "/chains/main/blocks/head";
  const src = BOOTSTRAP[0];
  const counter = BigInt((await call(rpc, `${head}/context/contracts/${src}/counter`)) as string) + 1n;
  const op = { branch: await call(rpc, `${head}/hash`), contents: contents.map((c, i) => ({ source: src, counter: String(counter + BigInt(i)), ...c })) };
  const forged = (await call(rpc, `${head}/helpers/forge/operations`, "POST", op)) as string;
  const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(forged), genericWatermark());
  return (await call(rpc, "/injection/operation", "POST", forged + toHex(signature))) as string;
}

const SCRIPT = {
  code: [
    { prim: "parameter", args: [{ prim: "nat" }] },
    { prim: "storage", args: [{ prim: "pair", args: [{ prim: "big_map", args: [{ prim: "nat" }, { prim: "string" }] }, { prim: "nat" }] }] },
    { prim: "code", args: [[{ prim: "CDR" }, { prim: "NIL", args: [{ prim: "operation" }] }, { prim: "PAIR" }]] },
  ],
  storage: { prim: "Pair", args: [[{ prim: "Elt", args: [{ int: "1" }, { string: "one" }] }], { int: "7" }] },
};

/** What `makeChain` made. */
export interface MadeChain {
  readonly originated: string;
  /** A level whose block holds the transfer and the origination. */
  readonly operationsLevel: number;
}

/**
 * On a node in manual baking: 3 blocks, a transfer and an origination (one batch) baked in one block, then
 * `more` blocks (and a second transfer in the middle).
 */
export async function makeChain(rpc: Rpc, more: number): Promise<MadeChain> {
  await call(rpc, "/sandbox/bake?count=3", "POST");
  await inject(rpc, [
    { kind: "transaction", fee: "1000", gas_limit: "1520", storage_limit: "0", amount: "1000000", destination: BOOTSTRAP[1] },
    { kind: "origination", fee: "10000", gas_limit: "10000", storage_limit: "2000", balance: "1000000", script: SCRIPT },
  ]);
  await call(rpc, "/sandbox/bake", "POST");
  const operationsLevel = (await call(rpc, "/chains/main/blocks/head/header/shell/level")) as number;
  const ops = (await call(rpc, "/chains/main/blocks/head/operations/3")) as { contents: { metadata?: { operation_result?: { originated_contracts?: string[] } } }[] }[];
  let originated: string | undefined;
  for (const op of ops) for (const c of op.contents) originated ??= c.metadata?.operation_result?.originated_contracts?.[0];
  if (originated === undefined) throw new Error("no contract originated");
  const half = Math.floor(more / 2);
  await call(rpc, `/sandbox/bake?count=${half}`, "POST");
  await inject(rpc, [{ kind: "transaction", fee: "1000", gas_limit: "1520", storage_limit: "0", amount: "2000000", destination: BOOTSTRAP[2] }]);
  await call(rpc, `/sandbox/bake?count=${more - half}`, "POST");
  return { originated, operationsLevel };
}

/**
 * Twenty RPCs whose answers a node imported from a snapshot at `block` shares with the exporting
 * node: the block's header, metadata and operations, balances, a contract's storage and script,
 * constants, an older block's header and operation hashes.
 */
export function samplePaths(block: string, chain: MadeChain): string[] {
  const b = `/chains/main/blocks/${block}`;
  const old = `/chains/main/blocks/${chain.operationsLevel}`;
  return [
    `${b}/header`,
    `${b}/hash`,
    `${b}/metadata`,
    `${b}/operations`,
    `${b}/operation_hashes`,
    `${b}/protocols`,
    `${b}/context/constants`,
    `${b}/context/contracts/${BOOTSTRAP[0]}/balance`,
    `${b}/context/contracts/${BOOTSTRAP[1]}/balance`,
    `${b}/context/contracts/${BOOTSTRAP[2]}/balance`,
    `${b}/context/contracts/${BOOTSTRAP[0]}/counter`,
    `${b}/context/contracts/${chain.originated}/balance`,
    `${b}/context/contracts/${chain.originated}/storage`,
    `${b}/context/contracts/${chain.originated}/script`,
    `${b}/context/delegates/${BOOTSTRAP[0]}`,
    `${b}/helpers/current_level`,
    `${b}/votes/current_period`,
    `${old}/header`,
    `${old}/operation_hashes`,
    `/chains/main/blocks/genesis/header`,
  ];
}
