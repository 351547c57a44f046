/**
 * Balance updates of Hangzhou receipts (`receipt_repr.ml`): which balance moved (a contract, or a
 * delegate's frozen rewards, fees or deposits for a cycle), by how much (`change`, signed mutez
 * as an int64: negative for a debit), and why (`origin`: block application, protocol migration or
 * liquidity-baking subsidy).
 * @module
 */
import { DecodeError } from "../../codec.ts";
import { jsonTypeError, makeCodec, type Codec } from "../../core.ts";
import { constant, conv, def } from "../../conv.ts";
import { int32, int64 } from "../../integers.ts";
import { publicKeyHash } from "../../keys.ts";
import { list } from "../../list.ts";
import { obj, req } from "../../object.ts";
import { tagged, union, type Case } from "../../union.ts";
import { contractId } from "../basic.ts";

/** Why a balance changed: `block` (block application), `migration` (protocol migration), `subsidy` (liquidity baking). */
export type BalanceUpdateOrigin = "block" | "migration" | "subsidy";

/** Categories of frozen balances. */
export type FreezerCategory = "rewards" | "fees" | "deposits";

/** A balance: a contract's, or a delegate's frozen balance of one category for one cycle. */
export type Balance =
  | { kind: "contract"; contract: string }
  | { kind: "freezer"; category: FreezerCategory; delegate: string; cycle: number };

/** One balance update: the balance, the signed change in mutez (negative = debit) and the origin. */
export type BalanceUpdate = Balance & { change: bigint; origin: BalanceUpdateOrigin };

const MIN_INT64 = -(1n << 63n);

/** Signed change in mutez; -2^63 is refused as Octez's `Tez_repr` cannot hold its opposite. */
const change: Codec<bigint> = conv<bigint, bigint>(
  (v) => {
    if (v === MIN_INT64) throw new RangeError("A balance change of -2^63 mutez is not representable");
    return v;
  },
  (v) => {
    if (v === MIN_INT64) throw new DecodeError("A balance change of -2^63 mutez is not representable");
    return v;
  },
  int64,
);

const originCase = (tag: number, title: string, name: BalanceUpdateOrigin) =>
  tagged<BalanceUpdateOrigin, BalanceUpdateOrigin>(tag, title, constant(name), (v) => (v === name ? v : undefined), () => name);

/** Origin of a balance update (`operation_metadata.alpha.update_origin`'s field): one tag byte. */
export const balanceUpdateOrigin: Codec<BalanceUpdateOrigin> = union<BalanceUpdateOrigin>([
  originCase(0, "Block_application", "block"),
  originCase(1, "Protocol_migration", "migration"),
  originCase(2, "Subsidy", "subsidy"),
]);

const updateFields = [req("change", change), req("origin", balanceUpdateOrigin)] as const;

function freezerCase(tag: number, title: string, category: FreezerCategory) {
  return tagged<BalanceUpdate, BalanceUpdate>(
    tag,
    title,
    obj(
      req("kind", constant("freezer")),
      req("category", constant(category)),
      req("delegate", publicKeyHash),
      req("cycle", int32),
      ...updateFields,
    ) as Codec<BalanceUpdate>,
    (v) => (v.kind === "freezer" && v.category === category ? v : undefined),
    (v) => v,
  );
}

/**
 * One balance update: Octez's `merge_objs (merge_objs balance balance_update) update_origin`,
 * laid out here as one union whose cases carry `change` and `origin` (same bytes: the balance's
 * tag and fields, the int64 change, the origin's tag; same JSON and JSON schema).
 */
export const balanceUpdate: Codec<BalanceUpdate> = byKindAndCategory([
  tagged<BalanceUpdate, BalanceUpdate>(
    0,
    "Contract",
    obj(req("kind", constant("contract")), req("contract", contractId), ...updateFields) as Codec<BalanceUpdate>,
    (v) => (v.kind === "contract" ? v : undefined),
    (v) => v,
  ),
  freezerCase(1, "Rewards", "rewards"),
  freezerCase(2, "Fees", "fees"),
  freezerCase(3, "Deposits", "deposits"),
]);

/** The union of `cases`, whose JSON case is named by `kind` and, for freezers, `category`. */
function byKindAndCategory(cases: Case<BalanceUpdate>[]): Codec<BalanceUpdate> {
  const u = union<BalanceUpdate>(cases);
  const [contract, rewards, fees, deposits] = cases as [Case<BalanceUpdate>, Case<BalanceUpdate>, Case<BalanceUpdate>, Case<BalanceUpdate>];
  const freezers: { [k: string]: Case<BalanceUpdate> } = { rewards, fees, deposits };
  return makeCodec<BalanceUpdate>({
    size: u.size,
    desc: u.desc,
    toJson: u.toJson,
    fromJson(j) {
      if (typeof j !== "object" || j === null || Array.isArray(j)) throw jsonTypeError("a balance update object", j);
      let c: Case<BalanceUpdate> | undefined;
      if (j["kind"] === "contract") c = contract;
      else if (j["kind"] === "freezer") {
        const cat = j["category"];
        c = typeof cat === "string" && Object.hasOwn(freezers, cat) ? freezers[cat] : undefined;
        if (c === undefined) throw new DecodeError(`Unknown freezer category ${JSON.stringify(cat)}`, ["category"]);
      } else throw new DecodeError(`Unknown balance kind ${JSON.stringify(j["kind"])}`, ["kind"]);
      return c.inj(c.codec.fromJson(j));
    },
    write: u.write,
    read: u.read,
    schema: (ctx) => u.schema(ctx),
  });
}

/** Balance updates codec (`011-PtHangz2.operation_metadata.alpha.balance_updates`). */
export const balanceUpdates: Codec<BalanceUpdate[]> = def("011-PtHangz2.operation_metadata.alpha.balance_updates", list(balanceUpdate));

/** Drops the updates whose change is zero, as Octez does before putting updates in a receipt. */
export function cleanupBalanceUpdates(updates: readonly BalanceUpdate[]): BalanceUpdate[] {
  return updates.filter((u) => u.change !== 0n);
}
