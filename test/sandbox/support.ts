/**
 * Helpers of the sandbox tests: RPC calls through `node.fetch` (or a bare handler), signed
 * transfers from the bootstrap accounts, balances.
 */
import * as assert from "uvu/assert";
import type { TezosNode } from "../../lib/node.ts";
import { parseSecretKey } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
export const BOOTSTRAP1_KEY = parseSecretKey("edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh");
/** Accounts nobody funded: their balance is what they receive. */
export const FRESH = ["tz1burnburnburnburnburnburnburjAYjjX", "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU", "tz1SfH1vxAt2TTZV7mpsN79uGas5LHhV8epq"] as const;

/** Where a call goes: a node (or anything with its `fetch`), or a bare handler. */
export type Target = Pick<TezosNode, "fetch"> | ((request: Request) => Promise<Response>);

/** One RPC call (`body` sent as JSON): status, and the body as JSON when it is (otherwise its text, null when empty). */
export async function call(target: Target, method: string, path: string, body?: unknown): Promise<{ status: number; json: Any }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const request = new Request(`http://localhost${path}`, init);
  const res = await (typeof target === "function" ? target(request) : target.fetch(request));
  const text = await res.text();
  const json = res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text === "" ? null : text;
  return { status: res.status, json };
}

/** A GET that must answer 200; its JSON. */
export async function get(node: Pick<TezosNode, "fetch">, path: string): Promise<Any> {
  const r = await call(node, "GET", path);
  assert.is(r.status, 200, `${path}: ${JSON.stringify(r.json)}`);
  return r.json;
}

/** A transfer of `amount` mutez from bootstrap1, signed, as the injection's hex. */
export async function signedTransfer(node: Pick<TezosNode, "fetch">, destination: string, amount: bigint): Promise<string> {
  const branch = await get(node, "/chains/main/blocks/head/hash");
  const counter = BigInt(await get(node, `/chains/main/blocks/head/context/contracts/${BOOTSTRAP1}/counter`));
  const op = {
    branch,
    contents: [{ kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(counter + 1n), gas_limit: "1520", storage_limit: "300", amount: String(amount), destination }],
  };
  const forged = (await call(node, "POST", "/chains/main/blocks/head/helpers/forge/operations", op)).json as string;
  const signature = await sign(BOOTSTRAP1_KEY, fromHex(forged), genericWatermark());
  return forged + toHex(signature);
}

/** Injects `hex`; must be accepted. Its hash. */
export async function inject(node: Pick<TezosNode, "fetch">, hex: string): Promise<string> {
  const r = await call(node, "POST", "/injection/operation", hex);
  assert.is(r.status, 200, JSON.stringify(r.json));
  return r.json as string;
}

/** Bakes `count` blocks; their hashes. */
export async function bake(node: Pick<TezosNode, "fetch">, count = 1): Promise<string[]> {
  const r = await call(node, "POST", `/sandbox/bake?count=${count}`);
  assert.is(r.status, 200, JSON.stringify(r.json));
  return r.json as string[];
}

/** A contract's balance at the head, in mutez (0 for an account never funded). */
export async function balance(node: Pick<TezosNode, "fetch">, contract: string, block = "head"): Promise<bigint> {
  const r = await call(node, "GET", `/chains/main/blocks/${block}/context/contracts/${contract}/balance`);
  if (r.status === 404) return 0n;
  assert.is(r.status, 200, JSON.stringify(r.json));
  return BigInt(r.json as string);
}

/** The head's hash and level. */
export async function head(node: Pick<TezosNode, "fetch">): Promise<{ hash: string; level: number }> {
  const h = await get(node, "/chains/main/blocks/head/header");
  return { hash: h.hash, level: h.level };
}
