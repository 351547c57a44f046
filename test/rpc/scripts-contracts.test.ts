/**
 * `{B}/context/contracts/<KT1>…` for contracts originated on chain, against Octez's own answers:
 * the tezt capture `rpc/hangzhou.client.contracts.out` (test/vectors/octez/examples/
 * hangzhou-sandbox-contracts.json) replays RPC_test.ml's `test_contracts` on a sandbox node —
 * bootstrap1 originates `str_id.tz` (storage `Some "initial storage"`), a block is baked, then
 * `big_map_entrypoints.tz` (two big maps, ids 4 and 5 after the four of the liquidity baking
 * contracts) — and reads the status, balance, counter, manager key, entrypoints, script, storage
 * and `big_map_get`. Here the same originations are signed, injected and baked on an in-process
 * node, and every answer must equal the capture once the KT1 is scrubbed as tezt does.
 *
 * Octez's rules shown: `script` is the script as stored (sections in the written order), the
 * status's `script` and `storage` are parsed and unparsed in Readable form (`unparse_script`:
 * parameter, storage, code). The liquidity baking CPMM, whose storage is kept in optimized form
 * (addresses as bytes), shows it so in `script` and readable in `storage` and the status.
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import { createNode, type TezosNode } from "../../lib/node.ts";
import { nodeCall, originate } from "../michelson/conformance-support.ts";

interface Exchange {
  method: "GET" | "POST";
  path: string;
  request_body?: Json;
  response?: Json;
  output_text?: string;
}
const capture = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/hangzhou-sandbox-contracts.json", import.meta.url), "utf8"),
) as { exchanges: Exchange[] };

/** The capture's exchanges on one originated contract: the n-th group opened by its status. */
function originatedGroup(n: number): Exchange[] {
  const groups: Exchange[][] = [];
  for (const e of capture.exchanges) {
    if (!e.path.includes("/contracts/[CONTRACT_HASH]")) continue;
    if (e.path.endsWith("/contracts/[CONTRACT_HASH]")) groups.push([]);
    groups.at(-1)?.push(e);
  }
  return groups[n]!;
}

const scrub = (text: string, kt1: string) => text.split(kt1).join("[CONTRACT_HASH]");

const CPMM = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const LQT = "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo";
const SANDBOX_TOKEN = "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN";

const Contracts = suite<{ node: TezosNode; simple: string; advanced: string }>("contract RPCs of originated contracts");

Contracts.before(async (ctx) => {
  ctx.node = await createNode({ bake: { mode: "manual" } });
  [ctx.simple] = await originate(ctx.node, [{ file: "opcodes/str_id.tz", storage: 'Some "initial storage"', balance: 0n }]);
  [ctx.advanced] = await originate(ctx.node, [
    { file: "mini_scenarios/big_map_entrypoints.tz", storage: 'Pair { Elt "dup" 0 } { Elt "dup" 1 ; Elt "test" 5 }', balance: 0n },
  ]);
});
Contracts.after(async (ctx) => {
  await ctx.node.close();
});

for (const [n, name] of [[0, "simple"], [1, "advanced"]] as const) {
  Contracts(`every RPC on the ${name} contract of RPC_test.ml answers what Octez answered`, async (ctx) => {
    const kt1 = ctx[name];
    const group = originatedGroup(n);
    assert.is(group.length >= 7, true, "the capture has the contract's exchanges");
    for (const e of group) {
      const path = e.path.replace("[CONTRACT_HASH]", kt1);
      const r = await nodeCall(ctx.node, e.method, path, e.request_body);
      if (e.output_text !== undefined) {
        assert.is(r.status, 404, `${e.method} ${e.path} is 404 ("${e.output_text.replace(/\s+/g, " ")}")`);
        continue;
      }
      assert.is(r.status, 200, `${e.method} ${e.path}: ${r.text.slice(0, 300)}`);
      assert.equal(JSON.parse(scrub(r.text, kt1)), e.response, `${e.method} ${e.path}`);
    }
  });
}

Contracts("script is the stored script (sections as written), the status unparses it parameter first", async ({ node, advanced }) => {
  const B = `/chains/main/blocks/head/context/contracts/${advanced}`;
  const stored = (await nodeCall(node, "GET", `${B}/script`)).json;
  const info = (await nodeCall(node, "GET", B)).json;
  assert.equal(stored.code.map((s: { prim: string }) => s.prim), ["storage", "parameter", "code"]);
  assert.equal(info.script.code.map((s: { prim: string }) => s.prim), ["parameter", "storage", "code"]);
  assert.equal(info.script.storage, (await nodeCall(node, "GET", `${B}/storage`)).json);
});

Contracts("the CPMM's storage is stored optimized and answered readable by storage and the status", async ({ node }) => {
  const B = `/chains/main/blocks/head/context/contracts/${CPMM}`;
  const balance = (await nodeCall(node, "GET", `${B}/balance`)).json as string;
  // Pair tokenPool xtzPool lqtTotal tokenAddress lqtAddress (HANGZHOU-FACTS: 1, 100 + subsidies, 100, token, LQT)
  const readable = {
    prim: "Pair",
    args: [{ int: "1" }, { int: balance }, { int: "100" }, { string: SANDBOX_TOKEN }, { string: LQT }],
  };
  assert.equal((await nodeCall(node, "GET", `${B}/storage`)).json, readable);
  assert.equal((await nodeCall(node, "GET", B)).json.script.storage, readable);
  // optimized: the right comb as a sequence, addresses as their 22-byte binary form
  const stored = (await nodeCall(node, "GET", `${B}/script`)).json.storage;
  assert.equal(stored, [
    { int: "1" },
    { int: balance },
    { int: "100" },
    { bytes: "01e927f00ef734dfc85919635e9afc9166c83ef9fc00" },
    { bytes: "0115eb0104481a6d7921160bc982c5e0a561cd8a3a00" },
  ]);
});

Contracts("an implicit account's status has no script, and its script and storage are 404", async ({ node }) => {
  const B = "/chains/main/blocks/head/context/contracts/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
  assert.is("script" in (await nodeCall(node, "GET", B)).json, false);
  assert.is((await nodeCall(node, "GET", `${B}/script`)).status, 404);
  assert.is((await nodeCall(node, "GET", `${B}/storage`)).status, 404);
});

Contracts.run();
