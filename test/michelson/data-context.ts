/**
 * A ScriptContext for the data tests: a chain with a few originated contracts (their parameter
 * types read from the reference `.tz` files), one big map, and plenty of gas. It is a real
 * implementation of the interface over fixed values, not a mock.
 */
import { readFileSync } from "node:fs";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { fileURLToPath } from "node:url";
import type { Micheline, MichelinePrim } from "../../lib/encoding/micheline.ts";
import type { GasMeter, ScriptContext } from "../../lib/michelson/context.ts";
import type { Ty } from "../../lib/michelson/ty.ts";
import { parseScriptText } from "../../lib/michelson/text/parse.ts";
import { parseParameterTy, parseTy, withField } from "../../lib/michelson/data/parse-type.ts";
import { parseMichelineText } from "../../lib/michelson/text/parse.ts";

/** Root of the Michelson reference data. */
export const REF = fileURLToPath(new URL("../vectors/michelson/", import.meta.url));

/** Reads a reference JSON file. */
export function refJson<T = any>(name: string): T {
  return JSON.parse(readFileSync(REF + name, "utf8")) as T;
}

/** The parameter type (with its root annotation) of a reference contract file. */
export function contractParameterTy(file: string): Ty {
  const items = parseScriptText(readFileSync(REF + "contracts/" + file, "utf8"));
  const p = items.find((n) => (n as MichelinePrim).prim === "parameter") as MichelinePrim;
  const t = parseParameterTy(p.args![0]!, { legacy: true });
  const root = (p.annots ?? []).find((a) => a.startsWith("%"));
  return root !== undefined && t.field === undefined ? withField(t, root.slice(1)) : t;
}

/** A gas meter with `limit` milligas. */
export class Meter implements GasMeter {
  left: number;
  constructor(limit: number) {
    this.left = limit;
  }
  consume(milligas: number): void {
    if (milligas > this.left) throw new Error("gas exhausted");
    this.left -= milligas;
  }
  remaining(): number {
    return this.left;
  }
}

/** KT1 addresses of the contracts of the reference tests. */
export const KT1_SIMPLE = "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi";
export const KT1_DELEGATABLE: string = b58encode(B58.contractHash, new Uint8Array(20).fill(7));

/** Parses a Michelson type written as text. */
export function tyText(src: string): Ty {
  return parseTy(parseMichelineText(src));
}

/** The test chain. */
export function testContext(opts: { bigMaps?: Map<bigint, { keyTy: Ty; valueTy: Ty }>; gas?: number } = {}): ScriptContext {
  const contracts = new Map<string, Ty>([
    [KT1_SIMPLE, contractParameterTy("entrypoints/simple_entrypoints.tz")],
    [KT1_DELEGATABLE, contractParameterTy("entrypoints/delegatable_target.tz")],
  ]);
  const bigMaps = opts.bigMaps ?? new Map();
  let nonce = 0;
  return {
    gas: new Meter(opts.gas ?? 1_040_000_000),
    legacy: false,
    self: KT1_SIMPLE,
    sender: KT1_SIMPLE,
    source: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
    amount: 0n,
    balanceOf: () => 0n,
    now: 0n,
    level: 1n,
    chainId: "NetXdQprcVkpaWU",
    contractParameterType: (kt1) => contracts.get(kt1),
    bigMapTypes: (id) => bigMaps.get(id),
    bigMapGet: () => undefined,
    bigMapMem: () => false,
    contractScript: () => undefined,
    globalConstant: () => undefined,
    votingPower: () => 0n,
    totalVotingPower: () => 0n,
    freshInternalNonce: () => nonce++,
    freshContractAddress: () => KT1_SIMPLE,
    freshTemporaryBigMapId: () => -1n,
  };
}

/** Every error id of a thrown TezosError's trace (empty when it is not one). */
export function traceIds(e: unknown): string[] {
  const t = (e as { trace?: { id: string }[] } | undefined)?.trace;
  return Array.isArray(t) ? t.map((i) => i.id.replace(/^proto\.011-PtHangz2\./, "")) : [];
}

/** Micheline without `undefined` fields (for deep equality). */
export function clean(n: Micheline): Micheline {
  return JSON.parse(JSON.stringify(n)) as Micheline;
}
