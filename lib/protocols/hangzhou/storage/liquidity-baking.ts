/**
 * Liquidity baking at activation (Octez `Liquidity_baking_migration`) and its two context entries
 * (`liquidity_baking_escape_ema`, int32; `liquidity_baking_cpmm_address`, a contract id).
 *
 * With the origination nonce H("Drip, drip, drip."): index 0 is the CPMM, index 1 the LQT
 * (liquidity token); unless tzBTC (`KT1PWx2mnDueood7fEmfbBDKx1D9BAnnXitn`) exists, and only below
 * level 1 437 862, index 2 is a test FA1.2 token (the LQT script, admin bootstrap1, 1 tez). The
 * scripts are Octez's own bytes (`./liquidity-baking-scripts.ts`). Octez typechecks each script
 * and stores its storage in optimized form, allocating the LQT's and the token's big maps; the
 * storage types of these three contracts are known, so {@link normalizeStorage} does exactly
 * that for the types they use (pairs, nat, mutez, address, big_map) without a full Michelson
 * typechecker — that comes with `michelson/`.
 * @module
 */
import { blake2b256 } from "../../../crypto/blake2b.ts";
import { decodeMicheline, type Micheline } from "../../../encoding/micheline.ts";
import { fromHex, toHex } from "../../../encoding/hex.ts";
import type { BalanceUpdate, SuccessfulManagerOperationResult } from "../../../encoding/hangzhou/mod.ts";
import { allocBigMap, freshBigMapId, type BigMapEntry } from "./big-map.ts";
import { contractExists, freshContractFromCurrentNonce, rawOriginate, setPaidStorageSpace, usedStorageSpace } from "./contract.ts";
import { contractBinary, contractOfBinary, decodeInt32, encodeInt32, LB_CPMM_ADDRESS_PATH, LB_ESCAPE_EMA_PATH } from "./layout.ts";
import { CPMM_SCRIPT_HEX, LQT_SCRIPT_HEX } from "./liquidity-baking-scripts.ts";
import type { ProtoContext } from "./proto-context.ts";

/** The origination nonce of the liquidity baking contracts: H("Drip, drip, drip."). */
export const LB_NONCE: Uint8Array = blake2b256(new TextEncoder().encode("Drip, drip, drip."));
/** Mainnet's tzBTC, the CPMM's token where it exists. */
export const MAINNET_TZBTC = "KT1PWx2mnDueood7fEmfbBDKx1D9BAnnXitn";
/** Below this level (and without tzBTC) the test token is originated. */
export const TEST_TOKEN_MAX_LEVEL = 1_437_862;
/** The test token's admin: bootstrap1 (`edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav`). */
export const TEST_TOKEN_ADMIN = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
/** The null address the LQT's initial liquidity is recorded for (22 zero bytes). */
export const NULL_ADDRESS_HEX = "00".repeat(22);

/** The CPMM script's code. */
export const CPMM_CODE: Micheline = decodeMicheline(fromHex(CPMM_SCRIPT_HEX));
/** The LQT (and test token) script's code. */
export const LQT_CODE: Micheline = decodeMicheline(fromHex(LQT_SCRIPT_HEX));

/** The escape EMA (`liquidity_baking_escape_ema`). */
export function getEscapeEma(pc: ProtoContext): number {
  return decodeInt32(pc.get(LB_ESCAPE_EMA_PATH));
}

/** Stores a new escape EMA. */
export function setEscapeEma(pc: ProtoContext, ema: number): void {
  pc.update(LB_ESCAPE_EMA_PATH, encodeInt32(ema));
}

/** The CPMM's address (`liquidity_baking_cpmm_address`). */
export function getCpmmAddress(pc: ProtoContext): string {
  return contractOfBinary(pc.get(LB_CPMM_ADDRESS_PATH));
}

// ---------------------------------------------------------------------------------------------
// Storage normalisation for the known storage types

type Prim = { prim: string; args?: readonly Micheline[]; annots?: readonly string[] };

function isPrim(m: Micheline, name?: string): m is Prim {
  return !Array.isArray(m) && typeof (m as Prim).prim === "string" && (name === undefined || (m as Prim).prim === name);
}

/** The storage type of a script's code. */
export function storageType(code: Micheline): Micheline {
  if (!Array.isArray(code)) throw new TypeError("script code must be a sequence");
  const s = (code as Micheline[]).find((x) => isPrim(x, "storage")) as Prim | undefined;
  if (s === undefined || s.args?.length !== 1) throw new TypeError("script code has no storage section");
  return s.args[0]!;
}

/** The right comb of a pair type: pair a (pair b c) and pair a b c both give [a, b, c]. */
function combTypes(t: Micheline): Micheline[] {
  if (!isPrim(t, "pair")) return [t];
  const args = t.args ?? [];
  if (args.length < 2) throw new TypeError("pair type needs at least two arguments");
  return [args[0]!, ...combTypes(args.length === 2 ? args[1]! : { prim: "pair", args: args.slice(1) })];
}

/** The elements of a comb value of `n` elements, from `Pair` (flat or nested) or a sequence. */
function combValues(v: Micheline, n: number): Micheline[] {
  if (n === 1) return [v];
  if (Array.isArray(v)) {
    if (v.length !== n) throw new TypeError(`comb value of ${v.length} elements for a comb of ${n}`);
    return [...v];
  }
  if (!isPrim(v, "Pair") || (v.args?.length ?? 0) < 2) throw new TypeError("expected a Pair value");
  const args = v.args!;
  const rest: Micheline = args.length === 2 ? args[1]! : { prim: "Pair", args: args.slice(1) };
  return [args[0]!, ...combValues(rest, n - 1)];
}

/** Optimized comb (`unparse_pair`, Optimized): n = 2 Pair a b, n = 3 Pair a (Pair b c), n ≥ 4 a sequence. */
function optimizedComb(xs: Micheline[]): Micheline {
  if (xs.length === 2) return { prim: "Pair", args: xs };
  if (xs.length === 3) return { prim: "Pair", args: [xs[0]!, { prim: "Pair", args: [xs[1]!, xs[2]!] }] };
  return xs;
}

function addressBytes(v: Micheline): string {
  if ("bytes" in (v as object)) return (v as { bytes: string }).bytes.toLowerCase();
  if ("string" in (v as object)) {
    const s = (v as { string: string }).string;
    if (s.includes("%")) throw new TypeError("entrypoints in addresses are not supported here");
    return toHex(contractBinary(s));
  }
  throw new TypeError("expected an address");
}

/**
 * A storage value in the optimized form Octez stores after typechecking (`unparse_data
 * Optimized`), with its big maps allocated (fresh ids, in traversal order) and replaced by their
 * ids. Supports the types of the liquidity baking contracts: pair combs, nat, int, mutez,
 * address (to 22 bytes) and big_map. Returns the value and the bytes of lazy storage allocated.
 */
export function normalizeStorage(pc: ProtoContext, type: Micheline, value: Micheline): { storage: Micheline; lazyStorageSize: bigint } {
  let lazy = 0n;
  const go = (t: Micheline, v: Micheline): Micheline => {
    if (!isPrim(t)) throw new TypeError("expected a type");
    switch (t.prim) {
      case "pair": {
        const ts = combTypes(t);
        const vs = combValues(v, ts.length);
        return optimizedComb(ts.map((ti, i) => go(ti, vs[i]!)));
      }
      case "nat":
      case "int":
      case "mutez": {
        const n = (v as { int?: string }).int;
        if (typeof n !== "string") throw new TypeError(`expected an int for ${t.prim}`);
        if (t.prim !== "int" && n.startsWith("-")) throw new TypeError(`negative ${t.prim}`);
        return { int: BigInt(n).toString() };
      }
      case "address":
        return { bytes: addressBytes(v) };
      case "big_map": {
        const [kt, vt] = t.args ?? [];
        if (kt === undefined || vt === undefined || !Array.isArray(v)) throw new TypeError("expected a big_map literal");
        const id = freshBigMapId(pc);
        const entries: BigMapEntry[] = (v as Micheline[]).map((e) => {
          if (!isPrim(e, "Elt") || e.args?.length !== 2) throw new TypeError("expected Elt");
          return { key: go(kt, e.args[0]!), value: go(vt, e.args[1]!) };
        });
        lazy += allocBigMap(pc, id, kt, vt, entries);
        return { int: id.toString() };
      }
      default:
        throw new TypeError(`storage type ${t.prim} is not supported before the Michelson typechecker`);
    }
  };
  const storage = go(type, value);
  return { storage, lazyStorageSize: lazy };
}

// ---------------------------------------------------------------------------------------------
// Originations

function originateMigration(
  pc: ProtoContext,
  address: string,
  balance: bigint,
  code: Micheline,
  storage: { storage: Micheline; lazyStorageSize: bigint },
): SuccessfulManagerOperationResult {
  rawOriginate(pc, address, { balance, script: { code, storage: storage.storage }, lazyStorageSize: storage.lazyStorageSize });
  const size = usedStorageSpace(pc, address);
  const paid = setPaidStorageSpace(pc, address, size);
  const update: BalanceUpdate = { kind: "contract", contract: address, change: balance, origin: "migration" };
  return {
    kind: "origination",
    balance_updates: [update],
    originated_contracts: [address],
    storage_size: size,
    paid_storage_size_diff: paid,
    consumed_gas: 0n,
    consumed_milligas: 0n,
  };
}

const str = (s: string): Micheline => ({ string: s });
const int = (n: number): Micheline => ({ int: String(n) });

/**
 * The liquidity baking part of the activation (`Liquidity_baking_migration.init`): escape EMA 0,
 * the CPMM address recorded, the CPMM, LQT and (on test chains) token originated. Returns the
 * origination results in Octez's order (CPMM, LQT, token) for the first block's
 * `implicit_operations_results`. Leaves the origination nonce unset.
 */
export function initLiquidityBaking(pc: ProtoContext): SuccessfulManagerOperationResult[] {
  return pc.atomically(() => {
    pc.initOriginationNonce(LB_NONCE);
    pc.init(LB_ESCAPE_EMA_PATH, encodeInt32(0));
    const level = pc.level.level;
    const cpmm = freshContractFromCurrentNonce(pc);
    const lqt = freshContractFromCurrentNonce(pc);
    pc.init(LB_CPMM_ADDRESS_PATH, contractBinary(cpmm));
    let token: string;
    const tokenResults: SuccessfulManagerOperationResult[] = [];
    if (contractExists(pc, MAINNET_TZBTC)) token = MAINNET_TZBTC;
    else if (level < TEST_TOKEN_MAX_LEVEL) {
      token = freshContractFromCurrentNonce(pc);
      const storage = normalizeStorage(pc, storageType(LQT_CODE), { prim: "Pair", args: [[], [], str(TEST_TOKEN_ADMIN), int(10_000)] });
      tokenResults.push(originateMigration(pc, token, 1_000_000n, LQT_CODE, storage));
    } else {
      return [];
    }
    const cpmmStorage = normalizeStorage(pc, storageType(CPMM_CODE), {
      prim: "Pair",
      args: [int(1), int(100), int(100), str(token), str(lqt)],
    });
    const lqtStorage = normalizeStorage(pc, storageType(LQT_CODE), {
      prim: "Pair",
      args: [[{ prim: "Elt", args: [{ bytes: NULL_ADDRESS_HEX }, int(100)] }], [], str(cpmm), int(100)],
    });
    const results = [originateMigration(pc, cpmm, 100n, CPMM_CODE, cpmmStorage), originateMigration(pc, lqt, 0n, LQT_CODE, lqtStorage)];
    pc.unsetOriginationNonce();
    return [...results, ...tokenResults];
  });
}
