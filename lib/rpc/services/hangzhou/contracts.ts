/**
 * `{B}/context/contracts…` (Octez `contract_services.ml`): the contract list, a contract's
 * status and single facts, and the early layout's `manager`, `spendable`, `delegatable`.
 *
 * Octez's rules kept: implicit accounts always exist (an unknown `tz…` has balance 0 and the
 * global counter), an unknown `KT1…` is 404; `counter` and `manager_key` of a `KT1…` are 404;
 * `manager_key` of an unrevealed account is `null`; `delegate` without a delegate, `script` and
 * `storage` of an implicit account are 404. The list is in Octez's order (reverse key order:
 * originated contracts first).
 *
 * Scripts as Octez 011 answers them: `script` is the script as stored (toplevel sections in the
 * order they were written, storage as stored: the liquidity baking storages hold their addresses
 * as bytes); `storage` and the status's `script` are the script parsed (legacy mode) and unparsed
 * in Readable form (`unparse_script`: parameter, storage, code with its data normalised, views;
 * storage readable). The services that read a script with the type checker (`entrypoints`,
 * `big_map_get`, `…/normalized`) are in `contract-scripts.ts`.
 * Early layout: `manager` is the account itself for an implicit account (404 for a `KT1…`, which
 * has no manager since Babylon); `spendable` and `delegatable` are true for implicit accounts and
 * false for originated ones (only their script moves their tez or sets their delegate).
 * @module
 */
import { formatPublicKey } from "../../../crypto/keys.ts";
import { bool } from "../../../encoding/integers.ts";
import { publicKey, publicKeyHash } from "../../../encoding/keys.ts";
import { list } from "../../../encoding/list.ts";
import { obj, opt, req } from "../../../encoding/object.ts";
import { n } from "../../../encoding/zarith.ts";
import { contractId, mutez } from "../../../encoding/hangzhou/basic.ts";
import { expression, script, type Script } from "../../../encoding/hangzhou/script.ts";
import type { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import { contractExists, findManagerKey, getBalance, getCounter, getScript, listContracts } from "../../../protocols/hangzhou/storage/contract.ts";
import { isImplicit } from "../../../protocols/hangzhou/storage/layout.ts";
import { contractDelegate } from "../../../protocols/hangzhou/storage/roll.ts";
import { Directory } from "../../directory.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { contractArg, nullable, octezListOrder, protoContextOf } from "./context.ts";
import { readableScript, readableStorage } from "./contract-scripts.ts";

/** A contract's status (`contract_services.ml`'s `info`). */
export interface ContractInfo {
  balance: bigint;
  delegate?: string;
  script?: Script;
  counter?: bigint;
}

/** Codec of a contract's status: balance, then optional delegate, script and counter (N). */
export const contractInfo = obj(req("balance", mutez), opt("delegate", publicKeyHash), opt("script", script), opt("counter", n));

/** The contract's script as stored, or `undefined`. */
function scriptOf(pc: ProtoContext, contract: string): Script | undefined {
  const s = getScript(pc, contract);
  return s === undefined ? undefined : { code: s.code, storage: s.storage };
}

/** `undefined` (404) unless the contract exists, else `f`'s answer. */
function ifExists<T>(ctx: BlockCtx, contract: string, f: (pc: ProtoContext) => T | undefined): T | undefined {
  const pc = protoContextOf(ctx);
  return contractExists(pc, contract) ? f(pc) : undefined;
}

/** Balances read at a block, per contract (`null`: no such contract), at most 4096 per block. */
const balances = new WeakMap<ProtoContext, Map<string, bigint | null>>();

/**
 * The balance of a contract at a block, `undefined` when it does not exist. A block's context
 * never changes: each block remembers the balances asked of it, which spares reading them from
 * the context's tree again (a `head` request resolves `head` first, so it reads the new head's).
 */
function balanceAt(ctx: BlockCtx, contract: string): bigint | undefined {
  const pc = protoContextOf(ctx);
  let known = balances.get(pc);
  if (known === undefined) balances.set(pc, (known = new Map()));
  let balance = known.get(contract);
  if (balance === undefined) {
    balance = contractExists(pc, contract) ? getBalance(pc, contract) : null;
    if (known.size >= 4096) known.clear();
    known.set(contract, balance);
  }
  return balance ?? undefined;
}

/** The status of a contract (`info`, its script in Readable form), `undefined` when it does not exist. */
export function contractInfoAt(ctx: BlockCtx, contract: string): ContractInfo | undefined {
  return ifExists(ctx, contract, (pc) => {
    const info: ContractInfo = { balance: getBalance(pc, contract) };
    const delegate = contractDelegate(pc, contract);
    if (delegate !== undefined) info.delegate = delegate;
    const s = isImplicit(contract) ? undefined : readableScript(ctx, contract);
    if (s !== undefined) info.script = s;
    if (isImplicit(contract)) info.counter = getCounter(pc, contract);
    return info;
  });
}

/** The contracts services of Hangzhou. */
export function contractsServices(): Directory<BlockCtx> {
  const C = ["context", "contracts"] as const;
  return new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: [...C],
      description: "All existing contracts (including non-empty default contracts).",
      output: list(contractId),
      handler: ({ ctx }) => octezListOrder(listContracts(protoContextOf(ctx))),
    }),
    service({
      method: "GET",
      path: [...C, contractArg],
      description: "Access the complete status of a contract.",
      output: contractInfo,
      optional: true,
      handler: ({ ctx, params: [c] }) => contractInfoAt(ctx, c) as never,
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "balance"],
      description: "Access the balance of a contract.",
      output: mutez,
      optional: true,
      cache: true,
      handler: ({ ctx, params: [c] }) => balanceAt(ctx, c),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "manager_key"],
      description: "Access the manager of a contract.",
      output: nullable(publicKey),
      optional: true,
      handler: ({ ctx, params: [c] }) => {
        if (!isImplicit(c)) return undefined;
        const pk = findManagerKey(protoContextOf(ctx), c);
        // `null` (an unrevealed key) is an answer; `undefined` is 404.
        return pk === undefined ? null : formatPublicKey(pk);
      },
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "delegate"],
      description: "Access the delegate of a contract, if any.",
      output: publicKeyHash,
      optional: true,
      handler: ({ ctx, params: [c] }) => ifExists(ctx, c, (pc) => contractDelegate(pc, c)),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "counter"],
      description: "Access the counter of a contract, if any.",
      output: n,
      optional: true,
      handler: ({ ctx, params: [c] }) => (isImplicit(c) ? getCounter(protoContextOf(ctx), c) : undefined),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "script"],
      description: "Access the code and data of the contract.",
      output: script,
      optional: true,
      handler: ({ ctx, params: [c] }) => ifExists(ctx, c, (pc) => scriptOf(pc, c)),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "storage"],
      description: "Access the data of the contract.",
      output: expression,
      optional: true,
      handler: ({ ctx, params: [c] }) => ifExists(ctx, c, () => (isImplicit(c) ? undefined : readableStorage(ctx, c))),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "manager"],
      description: "The manager of a contract (early layout): an implicit account manages itself.",
      output: obj(req("manager", publicKeyHash)),
      optional: true,
      handler: ({ params: [c] }) => (isImplicit(c) ? { manager: c } : undefined),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "spendable"],
      description: "Whether the contract's manager can spend its tez (early layout).",
      output: obj(req("spendable", bool)),
      optional: true,
      handler: ({ ctx, params: [c] }) => ifExists(ctx, c, () => ({ spendable: isImplicit(c) })),
    }),
    service({
      method: "GET",
      path: [...C, contractArg, "delegatable"],
      description: "Whether the contract's manager can change its delegate (early layout).",
      output: obj(req("delegatable", bool)),
      optional: true,
      handler: ({ ctx, params: [c] }) => ifExists(ctx, c, () => ({ delegatable: isImplicit(c) })),
    }),
  );
}
