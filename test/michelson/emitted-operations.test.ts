/**
 * Operations a contract emits carry their big maps under temporary ids given when
 * TRANSFER_TOKENS runs (Octez's `transfer`), not in the order the contract returns them.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { dataOf, sandbox, scriptOf } from "./conformance-support.ts";

// Two transfers to SELF, each carrying a new big map; the list returned is [second, first].
const SCRIPT = `parameter (big_map nat nat); storage unit;
code { DROP ;
       SELF ; PUSH mutez 0 ; EMPTY_BIG_MAP nat nat ; PUSH nat 1 ; SOME ; PUSH nat 1 ; UPDATE ; TRANSFER_TOKENS ;
       SELF ; PUSH mutez 0 ; EMPTY_BIG_MAP nat nat ; PUSH nat 2 ; SOME ; PUSH nat 2 ; UPDATE ; TRANSFER_TOKENS ;
       DIP { NIL operation ; SWAP ; CONS } ; CONS ;
       UNIT ; SWAP ; PAIR }`;

test("the first TRANSFER_TOKENS run gets big map -1 and the second -2, whatever the order of the returned list", async () => {
  const rpc = await sandbox();
  const r = await rpc.post("/helpers/scripts/run_code", {
    script: scriptOf(SCRIPT),
    storage: dataOf("Unit"),
    input: dataOf("{}"),
    amount: "0",
    balance: "0",
    chain_id: "NetXdQprcVkpaWU",
  });
  assert.is(r.status, 200, r.text.slice(0, 500));
  const ops = r.json.operations as { parameters?: { value: unknown } }[];
  assert.equal(ops.map((o) => o.parameters?.value), [{ int: "-2" }, { int: "-1" }]);
  const allocs = (r.json.lazy_storage_diff as { id: string; diff: { action: string; updates: { key: unknown }[] } }[]).filter((d) => d.diff.action === "alloc");
  // Octez's execute: the operations' diffs in the order of the returned list, then the storage's
  assert.equal(allocs.map((d) => [d.id, d.diff.updates.map((u) => u.key)]), [["-2", [{ int: "2" }]], ["-1", [{ int: "1" }]]]);
});

test.run();
