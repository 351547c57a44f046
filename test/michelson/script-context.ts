/**
 * The chain of the run-script conformance cases (the `environment` of cases.json): a real
 * in-memory {@link ScriptContext} over fixed values — chain id NetXdQprcVkpaWU, SELF = SOURCE =
 * SENDER = KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi, amount 0.05 tez, balance 4 000 000 tez, level 1,
 * 1 040 000 gas, the sandbox's five bootstrap delegates (500 rolls each) — and helpers that load
 * the reference cases.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Micheline } from "../../lib/encoding/micheline.ts";
import type { GasMeter, ScriptContext } from "../../lib/michelson/context.ts";
import type { Ty } from "../../lib/michelson/ty.ts";
import { B58, b58encode } from "../../lib/encoding/base58.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { readAccess } from "../../lib/michelson/gas/storage.ts";
import { blake2b160 } from "../../lib/crypto/blake2b.ts";
import { parseAndExpand } from "../../lib/michelson/text/macros.ts";
import { operationQuotaExceeded } from "../../lib/protocols/hangzhou/storage/proto-context.ts";

/** Root of the Michelson reference data. */
export const REF = fileURLToPath(new URL("../vectors/michelson/", import.meta.url));

/** Reads a reference JSON file. */
export function refJson<T = any>(name: string): T {
  return JSON.parse(readFileSync(REF + name, "utf8")) as T;
}

/** A script (macros expanded) from a reference contract file. */
export function scriptOfFile(file: string): Micheline {
  return parseAndExpand(readFileSync(REF + "contracts/" + file, "utf8"));
}

/** A data expression written as text (macros expanded). */
export function dataText(src: string): Micheline {
  return parseAndExpand(src, { kind: "expression" });
}

/** A gas meter with `limit` milligas that throws Hangzhou's out-of-gas error when exhausted. */
export class Meter implements GasMeter {
  left: number;
  constructor(limit: number) {
    this.left = limit;
  }
  consume(milligas: number): void {
    if (milligas > this.left) {
      this.left = 0;
      throw operationQuotaExceeded.error(undefined);
    }
    this.left -= milligas;
  }
  remaining(): number {
    return this.left;
  }
}

/** The run-script environment of cases.json. */
export const ENV = {
  chainId: "NetXdQprcVkpaWU",
  self: "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi",
  amount: 50000n,
  balance: 4000000000000n,
  level: 1n,
  gas: 1_040_000_000,
  bootstrap: ["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv"],
};

/** Options of {@link runContext}. */
export interface RunContextOptions {
  readonly balance?: bigint;
  readonly amount?: bigint;
  readonly gas?: number;
  readonly now?: bigint;
  readonly contracts?: Map<string, Ty>;
  readonly bigMaps?: Map<bigint, { keyTy: Ty; valueTy: Ty; values: Map<string, Micheline> }>;
}

/** The in-memory chain of the run-script cases. */
export function runContext(opts: RunContextOptions = {}): ScriptContext & { gas: Meter } {
  let nonce = 0;
  let originations = 0;
  let tmpIds = 0n;
  const contracts = opts.contracts ?? new Map<string, Ty>();
  const bigMaps = opts.bigMaps ?? new Map();
  const gas = new Meter(opts.gas ?? ENV.gas);
  // reads charge Octez's storage access gas, as the protocol's context does
  const read = <T>(pathLength: number, bytes: number, v: T): T => (gas.consume(readAccess(pathLength, bytes)), v);
  return {
    gas,
    legacy: false,
    self: ENV.self,
    sender: ENV.self,
    source: ENV.self,
    amount: opts.amount ?? ENV.amount,
    balanceOf: (c) => read(4, 8, c === ENV.self ? opts.balance ?? ENV.balance : 0n),
    now: opts.now ?? 0n,
    level: ENV.level,
    chainId: ENV.chainId,
    contractParameterType: (kt1) => contracts.get(kt1),
    bigMapTypes: (id) => bigMaps.get(id),
    bigMapGet: (id, hash) => bigMaps.get(id)?.values.get(toHex(hash)),
    bigMapMem: (id, hash) => bigMaps.get(id)?.values.has(toHex(hash)) ?? false,
    contractScript: () => undefined,
    globalConstant: () => undefined,
    votingPower: (kh) => read(4, 4, ENV.bootstrap.includes(kh) ? 500n : 0n),
    totalVotingPower: () => read(2, 4, 2500n),
    freshInternalNonce: () => nonce++,
    freshContractAddress: () => {
      // Octez: Contract_hash of blake2b-160 of (operation hash zero ‖ origination index)
      const data = new Uint8Array(36);
      const i = originations++;
      new DataView(data.buffer).setInt32(32, i + 1);
      return b58encode(B58.contractHash, blake2b160(data));
    },
    freshTemporaryBigMapId: () => --tmpIds,
  };
}
