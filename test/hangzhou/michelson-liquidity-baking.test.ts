/**
 * The liquidity baking contracts run as Octez runs them: the two incremental classes of
 * tests_011/test_liquidity_baking.py (setup, mint, approvals, add liquidity, then LQT approval /
 * approved transfer / remove liquidity, or buy / transfer / sell TOK) replayed on a sandbox chain,
 * each block giving the CPMM its subsidy, and every recorded regression output compared: the CPMM
 * address, the printed DEX / TOK / LQT storages, and for each operation and each of its internal
 * operations the updated storage, the big map updates, storage size, paid storage size diff,
 * consumed gas (milligas) and balance updates (reference/michelson/regtest-outputs.json).
 * The block metadata's `implicit_operations_results` (the subsidy's CPMM call) is checked too.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { hangzhouBlockMetadata } from "../../lib/encoding/hangzhou/receipts/block-metadata.ts";
import { printMicheline } from "../../lib/michelson/text/mod.ts";
import { getCpmmAddress } from "../../lib/protocols/hangzhou/storage/liquidity-baking.ts";
import { ScenarioClient } from "./scenario-client.ts";

const OUT: Record<string, { output: string }> = JSON.parse(readFileSync(new URL("../vectors/michelson/regtest-outputs.json", import.meta.url), "utf8")).outputs;
const PREFIX = "tests_011/test_liquidity_baking.py::";
const DEX = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const TOK = "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN";
const LQT = "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo";
const B1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const B2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
const B3 = "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU";
const FUTURE = "2050-01-01T00:00:00Z";

type Step = { test: string; from: string; to: string; amount: string; entrypoint: string; arg: string } | { test: string; storage: string };

const SETUP: Step[] = [
  { test: "test_call_mint_or_burn", from: B1, to: TOK, amount: "0", entrypoint: "mintOrBurn", arg: `(Pair 100000000 "${B1}")` },
  { test: "test_call_approve1", from: "bootstrap1", to: TOK, amount: "0", entrypoint: "approve", arg: `(Pair "${DEX}" 1000000000)` },
  { test: "test_call_approve2", from: "bootstrap2", to: TOK, amount: "0", entrypoint: "approve", arg: `(Pair "${DEX}" 1000000000)` },
  { test: "test_call_approve3", from: "bootstrap3", to: TOK, amount: "0", entrypoint: "approve", arg: `(Pair "${DEX}" 1000000000)` },
];
const ADD: Step = { test: "test_add_liquidity", from: "bootstrap1", to: DEX, amount: "9001", entrypoint: "addLiquidity", arg: `(Pair "${B1}" 0 1000000000 "${FUTURE}")` };
const STORAGES: Step[] = [{ test: "test_dex_storage", storage: DEX }, { test: "test_lqt_storage", storage: LQT }, { test: "test_tok_storage", storage: TOK }];
const CLASSES: Record<string, Step[]> = {
  TestAddApproveTransferRemove: [
    ...SETUP,
    ADD,
    { test: "test_approval", from: "bootstrap1", to: LQT, amount: "0", entrypoint: "approve", arg: `(Pair "${B2}" 1000)` },
    { test: "test_approved_transfer", from: "bootstrap2", to: LQT, amount: "0", entrypoint: "transfer", arg: `(Pair "${B1}" "${B2}" 1000)` },
    { test: "test_remove_liquidity", from: "bootstrap2", to: DEX, amount: "0", entrypoint: "removeLiquidity", arg: `(Pair "${B2}" 1000 0 0 "${FUTURE}")` },
    ...STORAGES,
  ],
  TestTrades: [
    ...SETUP,
    ADD,
    { test: "test_buy_tok", from: "bootstrap2", to: DEX, amount: "9001", entrypoint: "xtzToToken", arg: `(Pair "${B2}" 0 "${FUTURE}")` },
    { test: "test_transfer", from: "bootstrap2", to: TOK, amount: "0", entrypoint: "transfer", arg: `(Pair "${B2}" "${B3}" 100)` },
    { test: "test_sell_tok", from: "bootstrap3", to: DEX, amount: "0", entrypoint: "tokenToXtz", arg: `(Pair "${B3}" 100 0 "${FUTURE}")` },
    ...STORAGES,
  ],
};

/** What the client printed for one (internal) transaction's result. */
interface Printed {
  storage?: string;
  bigMaps: string[];
  storageSize?: string;
  paidDiff?: string;
  gas?: string;
  balanceUpdates: string[];
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim();
const scrub = (s: string) => s.replace(/"(KT1|tz[123])[1-9A-HJ-NP-Za-km-z]{33}"/g, '"[CONTRACT_HASH]"');

/** The transaction results of a client's transfer output, top-level first then internal ones. */
function parseOutput(out: string): Printed[] {
  const lines = out.slice(out.indexOf("This sequence of operations was run:")).split("\n");
  const res: Printed[] = [];
  let cur: Printed | undefined;
  let section: "storage" | "bigmaps" | "balance" | undefined;
  for (const line of lines) {
    const t = line.trim();
    if (t === "Transaction:") {
      cur = { bigMaps: [], balanceUpdates: [] };
      res.push(cur);
      section = undefined;
      continue;
    }
    if (cur === undefined) continue;
    if (t === "Updated storage:") section = "storage";
    else if (t === "Updated big_maps:") section = "bigmaps";
    else if (t === "Balance updates:") section = "balance";
    else if (t.startsWith("Storage size:")) ((cur.storageSize = t.split(/\s+/)[2]), (section = undefined));
    else if (t.startsWith("Paid storage size diff:")) ((cur.paidDiff = t.split(/\s+/)[4]), (section = undefined));
    else if (t.startsWith("Consumed gas:")) ((cur.gas = t.split(/\s+/)[2]), (section = undefined));
    else if (t === "Internal operations:" || t === "" || t.startsWith("Injected block")) section = undefined;
    else if (section === "storage") cur.storage = (cur.storage === undefined ? "" : cur.storage + " ") + t;
    else if (section === "bigmaps") {
      if (/^(Set|Unset|New|Clear|Copy)/.test(t)) cur.bigMaps.push(t);
      else cur.bigMaps[cur.bigMaps.length - 1] += " " + t;
    } else if (section === "balance") cur.balanceUpdates.push(t.replace(/^.*\.\.\. /, ""));
  }
  return res.map((p) => ({ ...p, ...(p.storage !== undefined ? { storage: norm(p.storage) } : {}), bigMaps: p.bigMaps.map(norm).sort() }));
}

const tez = (mutez: string) => {
  const n = BigInt(mutez);
  const a = n < 0n ? -n : n;
  const frac = (a % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${n < 0n ? "-" : "+"}ꜩ${a / 1_000_000n}${frac === "" ? "" : "." + frac}`;
};

/** Our receipt of one (internal) transaction, printed as the client prints it. */
function printedResult(r: any): Printed {
  const bigMaps: string[] = [];
  for (const d of r.big_map_diff ?? []) {
    const w = (m: any) => printMicheline(m, { wrapped: true });
    if (d.action === "update") bigMaps.push(d.value === undefined ? `Unset map(${d.big_map})[${w(d.key)}]` : `Set map(${d.big_map})[${w(d.key)}] to ${w(d.value)}`);
    else bigMaps.push(`${d.action} map(${d.big_map ?? d.destination_big_map})`);
  }
  // as the client prints milligas (Gas.Arith.pp): the gas, then 3 decimals when not whole
  const milligas = BigInt(r.consumed_milligas);
  const gas = milligas % 1000n === 0n ? (milligas / 1000n).toString() : `${milligas / 1000n}.${(milligas % 1000n).toString().padStart(3, "0")}`;
  return {
    ...(r.storage !== undefined ? { storage: norm(printMicheline(r.storage)) } : {}),
    bigMaps: bigMaps.map(norm).sort(),
    // The client prints neither a zero storage size nor a zero paid storage size diff.
    ...(r.storage_size === "0" || r.storage_size === undefined ? {} : { storageSize: r.storage_size }),
    ...(r.paid_storage_size_diff === "0" || r.paid_storage_size_diff === undefined ? {} : { paidDiff: r.paid_storage_size_diff }),
    gas,
    balanceUpdates: (r.balance_updates ?? []).map((b: any) => tez(b.change)),
  };
}

const S = suite("hangzhou liquidity baking");
/** [operation, our consumed gas, Octez's] of every transaction run by the tests above. */
const gasChecks: [string, string | undefined, string | undefined][] = [];

for (const [cls, steps] of Object.entries(CLASSES)) {
  S(`${cls}: every operation result and storage matches the regression outputs of test_liquidity_baking.py`, async () => {
    const c = await ScenarioClient.create(0);
    // test_setup: the CPMM address and its first storage.
    assert.is(getCpmmAddress(c.pc()), DEX);
    const setup = OUT[`${PREFIX}${cls}::test_setup`]!.output.trim().split("\n");
    assert.is(setup[0], `"[CONTRACT_HASH]"`);
    assert.is(norm(scrub(c.storage(DEX))), norm(setup.slice(1).join("\n")));
    let compared = 0;
    for (const st of steps) {
      const expected = OUT[`${PREFIX}${cls}::${st.test}`]!.output;
      if ("storage" in st) {
        assert.is(norm(scrub(c.storage(st.storage))), norm(expected), `${st.test}`);
        compared++;
        continue;
      }
      const poolBefore = BigInt(c.storage(DEX).split(/\s+/)[2]!);
      await c.transfer({ from: st.from, to: st.to, amountTez: st.amount, entrypoint: st.entrypoint, arg: st.arg, burnCap: "10" });
      const block = await c.bake("bootstrap5");
      const r = c.lastApplied[0]!.result;
      const ours = [printedResult(r.operation_result), ...(r.internal_operation_results ?? []).map((i: any) => printedResult(i.result))];
      const theirs = parseOutput(expected);
      assert.is(ours.length, theirs.length, `${st.test}: number of transactions`);
      theirs.forEach((t, i) => {
        const { gas, ...o } = ours[i]!;
        const { gas: gasThen, ...expect } = t;
        assert.equal(o, expect, `${st.test}: transaction ${i}`);
        gasChecks.push([`${cls} ${st.test} #${i}`, gas, gasThen]);
      });
      // The block's implicit operation: the subsidy's call to the CPMM, its xtz pool 2.5 tez larger
      // than before the block (the first Hangzhou block also lists the migration's originations).
      const implicit = (hangzhouBlockMetadata.toJson(c.h.metadataOf(block)) as any).implicit_operations_results;
      const sub = implicit.at(-1);
      assert.is(sub.kind, "transaction");
      assert.equal(sub.balance_updates, [{ kind: "contract", contract: DEX, change: "2500000", origin: "subsidy" }]);
      assert.is(BigInt(sub.storage[1].int), poolBefore + 2_500_000n, "xtz pool grows by the subsidy");
      compared++;
    }
    assert.is(compared, steps.length);
  });
}

// Octez 011 keeps typechecked scripts in a cache (Script_cache): a call to a cached contract pays no
// script loading and typechecking, a first call pays them and the cache update; the CPMM runs every
// block, TOK and LQT are cached from their first call on.
S("every transaction consumes the gas Octez consumed, script cache hits and misses included", () => {
  assert.ok(gasChecks.length > 0);
  for (const [what, ours, theirs] of gasChecks) assert.is(ours, theirs, what);
});

S.run();
