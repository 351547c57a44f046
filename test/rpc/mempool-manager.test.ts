import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import type { Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { hashOperation } from "../../lib/shell/operations.ts";
import { BOOTSTRAP, forge, manager } from "../hangzhou/manager-fixture.ts";

type Obj = { [k: string]: Json };
const capture = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/hangzhou-sandbox-mempool.json", import.meta.url), "utf8"),
) as { exchanges: { path: string; response?: Obj }[] };
const capturedPending = capture.exchanges.find((e) => e.path === "/chains/main/mempool/pending_operations")!.response!;

async function call(node: TezosNode, method: string, path: string, body?: Json): Promise<{ status: number; json: Json }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await node.fetch(new Request(`http://localhost${path}`, init));
  const text = await res.text();
  return { status: res.status, json: text === "" ? null : (JSON.parse(text) as Json) };
}

async function counterOf(node: TezosNode, pkh: string): Promise<bigint> {
  return BigInt((await call(node, "GET", `/chains/main/blocks/head/context/contracts/${pkh}/counter`)).json as string);
}

/** The capture's transfer shape: 1 tez, fee 1000, gas 1040, storage 257. */
async function transfer(node: TezosNode, from: number, to: number, counter: bigint, fee = 1000n): Promise<string> {
  const branch = (await call(node, "GET", "/chains/main/blocks/head/hash")).json as string;
  const c = manager<Transaction>({
    kind: "transaction",
    source: BOOTSTRAP[from]!.pkh,
    counter,
    amount: 1_000_000n,
    destination: BOOTSTRAP[to]!.pkh,
    fee,
    gas_limit: 1040n,
    storage_limit: 257n,
  });
  return toHex(await forge(BOOTSTRAP[from]!.sk, branch, [c]));
}

/** Replaces what varies between runs by the capture's placeholders. */
function scrub(json: Json): Json {
  if (Array.isArray(json)) return json.map(scrub);
  if (json === null || typeof json !== "object") {
    if (typeof json !== "string") return json;
    if (/^o[a-zA-Z0-9]{50}$/.test(json)) return "[OPERATION_HASH]";
    if (/^B[a-zA-Z0-9]{50}$/.test(json)) return "[BRANCH_HASH]";
    if (/^tz[123][a-zA-Z0-9]{33}$/.test(json)) return "[PUBLIC_KEY_HASH]";
    if (/^sig[a-zA-Z0-9]{93}$/.test(json)) return "[SIGNATURE]";
    return json;
  }
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, scrub(v)]));
}

const Manager = suite<{ node: TezosNode }>("mempool with manager operations");
Manager.before.each(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" } });
});
Manager.after.each(async (ctx) => {
  await ctx.node.close();
});

Manager("the capture's classes: applied, counter in the past branch_refused, counter in the future branch_delayed", async ({ node }) => {
  const c1 = await counterOf(node, BOOTSTRAP[0]!.pkh);
  // bootstrap1's transfer is applied; a second one with the same counter is in the past.
  const first = await transfer(node, 0, 1, c1 + 1n);
  assert.equal(await call(node, "POST", "/injection/operation", first), { status: 200, json: hashOperation(Uint8Array.from(first.match(/../g)!.map((b) => parseInt(b, 16)))) });
  const past = await transfer(node, 0, 1, c1 + 1n, 1001n);
  const refusedAtInjection = await call(node, "POST", "/injection/operation", past);
  assert.is(refusedAtInjection.status, 500);
  assert.match(((refusedAtInjection.json as Obj[])[0]!["msg"]) as string, /contract\.counter_in_the_past/);
  assert.is((await call(node, "POST", "/private/injection/operation", past)).status, 200);
  const c2 = await counterOf(node, BOOTSTRAP[1]!.pkh);
  assert.is((await call(node, "POST", "/private/injection/operation", await transfer(node, 1, 1, c2 + 5n))).status, 200);
  const pending = (await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj;
  const { refused: _r, applied: _a, ...rest } = scrub(pending) as Obj;
  const { refused: _cr, applied: _ca, ...capturedRest } = capturedPending;
  // Same shapes and errors as Octez's capture (hashes, keys and signatures scrubbed like it).
  const stripFee = (j: Json) => JSON.parse(JSON.stringify(j).replace(/"fee":"100[01]"/g, '"fee":"1000"').replace(/"(expected|found)":"\d+"/g, '"$1":"N"')) as Json;
  assert.equal(stripFee(rest), stripFee(capturedRest));
  assert.equal(scrub(pending["applied"] as Json), capturedPending["applied"]);
  const past1 = ((pending["branch_refused"] as Json[])[0] as [string, Obj])[1]["error"] as Obj[];
  assert.equal(past1, [{ kind: "branch", id: "proto.011-PtHangz2.contract.counter_in_the_past", contract: BOOTSTRAP[0]!.pkh, expected: String(c1 + 2n), found: String(c1 + 1n) }]);
});

Manager("an applied transfer is baked and leaves the mempool; the monitor streams it, then ends", async ({ node }) => {
  const res = await node.fetch(new Request("http://localhost/chains/main/mempool/monitor_operations"));
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const line = async (): Promise<Json | undefined> => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        return JSON.parse(l) as Json;
      }
      const r = await reader.read();
      if (r.done) return undefined;
      buf += dec.decode(r.value, { stream: true });
    }
  };
  assert.equal(await line(), []);
  const hex = await transfer(node, 2, 1, (await counterOf(node, BOOTSTRAP[2]!.pkh)) + 1n);
  const hash = (await call(node, "POST", "/injection/operation", hex)).json as string;
  const streamed = (await line()) as Obj[];
  assert.equal(streamed.map((o) => [o["hash"], o["protocol"], "error" in o]), [[hash, "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx", false]]);
  const [block] = (await call(node, "POST", "/sandbox/bake")).json as string[];
  assert.is(await line(), undefined);
  assert.equal((await call(node, "GET", `/chains/main/blocks/${block}/operation_hashes/3`)).json, [hash]);
  assert.equal(((await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj)["applied"], []);
  // Replayed once included: answered with its hash, nothing changes.
  assert.equal(await call(node, "POST", "/injection/operation", hex), { status: 200, json: hash });
  assert.equal(((await call(node, "GET", "/chains/main/mempool/pending_operations")).json as Obj)["applied"], []);
});

Manager.run();

const Auto = suite("mempool with manager operations, auto baker");

Auto("an injected transfer is baked at once by the auto baker", async () => {
  const node = await createNode();
  try {
    const level = ((await call(node, "GET", "/chains/main/blocks/head/header")).json as Obj)["level"] as number;
    const hex = await transfer(node, 3, 0, (await counterOf(node, BOOTSTRAP[3]!.pkh)) + 1n);
    const hash = (await call(node, "POST", "/injection/operation", hex)).json as string;
    // The applied transfer queued a bake before the injection answered; this one runs after it.
    await call(node, "POST", "/sandbox/bake");
    assert.equal((await call(node, "GET", `/chains/main/blocks/${level + 1}/operation_hashes/3`)).json, [hash]);
  } finally {
    await node.close();
  }
});

Auto.run();
