/**
 * Values against Octez's printed storages (cases.json, run_script cases): the storage a run ends
 * with, as the client printed it (Readable), must read as a value of the contract's storage type
 * and print back identically; the inputs of the runs that succeed must typecheck. Also the
 * persistent map against a sorted-array model, and COMPARE orders.
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Micheline, MichelinePrim } from "../../lib/encoding/micheline.ts";
import { parseMichelineText, parseScriptText } from "../../lib/michelson/text/parse.ts";
import { printMicheline } from "../../lib/michelson/text/print.ts";
import { findEntrypointTy, parseData } from "../../lib/michelson/data/parse-data.ts";
import { unparseData } from "../../lib/michelson/data/unparse-data.ts";
import { parseParameterTy, parseStorageTy } from "../../lib/michelson/data/parse-type.ts";
import { compareValues } from "../../lib/michelson/data/compare.ts";
import { emptyMap } from "../../lib/michelson/data/map.ts";
import { ty, type Ty } from "../../lib/michelson/ty.ts";
import type { Value } from "../../lib/michelson/value.ts";
import { REF, refJson, testContext } from "./data-context.ts";

interface RunCase { id: string; file?: string; storage: string; input: string; expected_storage?: string; expected_success?: boolean; expected_error?: string }

const Values = suite("values of the reference runs (cases.json)");

const runs = refJson<{ cases: RunCase[] }>("cases.json").cases.filter((c) => c.file !== undefined);
const scripts = new Map<string, { param: Ty; storage: Ty } | null>();
function script(file: string): { param: Ty; storage: Ty } | null {
  if (!scripts.has(file)) {
    try {
      const items = parseScriptText(readFileSync(REF + "contracts/" + file, "utf8"), { check: false });
      const sec = (n: string): Micheline => (items.find((x) => (x as MichelinePrim).prim === n) as MichelinePrim).args![0]!;
      scripts.set(file, { param: parseParameterTy(sec("parameter")), storage: parseStorageTy(sec("storage")) });
    } catch {
      scripts.set(file, null);
    }
  }
  return scripts.get(file)!;
}
// Values that need the chain or the instruction type checker are checked elsewhere.
function selfContained(t: Ty): boolean {
  return !["lambda", "big_map", "contract", "ticket", "operation", "sapling_state", "sapling_transaction"].includes(t.prim) && t.args.every(selfContained);
}

Values("the storages Octez printed at the end of the runs read back and print identically in Readable mode", () => {
  let checked = 0;
  for (const c of runs) {
    if (c.expected_storage === undefined) continue;
    const s = script(c.file!);
    if (s === null || !selfContained(s.storage)) continue;
    const node = parseMichelineText(c.expected_storage, { check: false });
    const v = parseData(testContext(), s.storage, node);
    assert.is(printMicheline(unparseData(s.storage, v, "Readable")), printMicheline(node), `${c.id} ${c.file}`);
    checked++;
  }
  assert.ok(checked > 500, `only ${checked} storages checked`);
});

Values("the inputs and initial storages of the runs that succeed typecheck", () => {
  let checked = 0;
  for (const c of runs) {
    if (c.expected_error !== undefined) continue;
    const s = script(c.file!);
    if (s === null) continue;
    // The input goes to the default entrypoint (a `%default` branch when there is one).
    for (const [t, text] of [[findEntrypointTy(s.param, "default"), c.input], [s.storage, c.storage]] as const) {
      if (!selfContained(t)) continue;
      try {
        parseData(testContext(), t, parseMichelineText(text, { check: false }));
      } catch (e) {
        throw new Error(`${c.id} ${c.file} ${text}: ${String(e)}`);
      }
      checked++;
    }
  }
  assert.ok(checked > 1000, `only ${checked} values checked`);
});

// -- maps --

function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0);
}

Values("the persistent map keeps COMPARE order, answers like a sorted model and leaves older versions unchanged", () => {
  const keyTy = ty("pair", ty("int"), ty("string"));
  const next = lcg(42);
  let m = emptyMap(keyTy);
  const model = new Map<string, [Value, Value]>();
  const versions: [typeof m, [Value, Value][]][] = [];
  for (let i = 0; i < 3000; i++) {
    const k: Value = [BigInt((next() % 200) - 100), String.fromCharCode(97 + (next() % 5))];
    const id = `${k[0]}|${k[1]}`;
    if (next() % 4 === 0) {
      m = m.delete(k);
      model.delete(id);
    } else {
      m = m.set(k, BigInt(i));
      model.set(id, [k, BigInt(i)]);
    }
    if (i % 500 === 0) versions.push([m, [...model.values()]]);
  }
  const sorted = (xs: [Value, Value][]): [Value, Value][] => [...xs].sort((a, b) => compareValues(keyTy, a[0], b[0]));
  assert.equal([...m.entries()], sorted([...model.values()]));
  assert.is(m.size, model.size);
  for (const [old, snapshot] of versions) assert.equal([...old.entries()], sorted(snapshot));
  for (const [k, v] of model.values()) assert.is(m.get(k), v);
  assert.is(m.get([1000n, "z"]), undefined);
});

Values("COMPARE orders options, unions, addresses (implicit before originated, default entrypoint as \"default\") and bytes", () => {
  const opt = ty("option", ty("nat"));
  assert.is(compareValues(opt, null, { some: 0n }), -1);
  const or = ty("or", ty("nat"), ty("nat"));
  assert.is(compareValues(or, { or: "Right", value: 0n }, { or: "Left", value: 1n }), 1);
  const addr = ty("address");
  const tz = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", kt = "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi";
  assert.is(compareValues(addr, { address: kt, entrypoint: "" }, { address: tz, entrypoint: "" }), 1);
  assert.is(compareValues(addr, { address: kt, entrypoint: "" }, { address: kt, entrypoint: "a" }), 1); // "default" > "a"
  assert.is(compareValues(ty("bytes"), Uint8Array.of(1), Uint8Array.of(1, 0)), -1);
});

Values.run();
