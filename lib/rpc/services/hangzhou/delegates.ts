/**
 * `{B}/context/delegates…` (Octez `delegate_services.ml`): the registered delegates (query
 * `active`, `inactive`; both or neither: all), everything about one delegate, and each fact on
 * its own. A key hash that is not a registered delegate answers `delegate.not_registered` (500);
 * for `balance` that error comes under `delegate_service.balance_rpc_on_non_delegate`, as Octez
 * traces it. Lists come in Octez's order (reverse key order).
 * @module
 */
import { bool, int32 } from "../../../encoding/integers.ts";
import { publicKeyHash } from "../../../encoding/keys.ts";
import { list } from "../../../encoding/list.ts";
import { obj, req } from "../../../encoding/object.ts";
import { contractId, cycle, frozenBalanceByCycles, mutez, type FrozenBalanceByCycle } from "../../../encoding/hangzhou/basic.ts";
import { TezosError, type ErrorDefinition } from "../../../errors/mod.ts";
import { protoError } from "../../../protocols/hangzhou/proto-error.ts";
import { checkDelegate, delegatedContracts, listDelegates } from "../../../protocols/hangzhou/storage/delegation.ts";
import { storageError } from "../../../protocols/hangzhou/storage/errors.ts";
import {
  deactivated,
  delegatedBalance,
  frozenBalance,
  frozenBalanceByCycle,
  fullBalance,
  stakingBalance,
} from "../../../protocols/hangzhou/storage/frozen.ts";
import type { ProtoContext } from "../../../protocols/hangzhou/storage/proto-context.ts";
import { desactivationPath, gracePeriod } from "../../../protocols/hangzhou/storage/roll.ts";
import { votingPower } from "../../../protocols/hangzhou/storage/vote.ts";
import { Directory } from "../../directory.ts";
import { flag, query } from "../../query.ts";
import { service } from "../../service.ts";
import type { BlockCtx } from "../block-context.ts";
import { octezListOrder, pkhArg, protoContextOf } from "./context.ts";

/** `proto.011-PtHangz2.delegate_service.balance_rpc_on_non_delegate` {pkh}. */
export const balanceRpcNonDelegate: ErrorDefinition<{ pkh: string }> = protoError({
  id: "delegate_service.balance_rpc_on_non_delegate",
  kind: "temporary",
  title: "Balance request for an unregistered delegate",
  description: "The account whose balance was requested is not a delegate.",
  fields: obj(req("pkh", publicKeyHash)),
});

/** Everything about a delegate (`delegate_services.ml`'s `info`). */
export interface DelegateInfo {
  balance: bigint;
  frozen_balance: bigint;
  frozen_balance_by_cycle: FrozenBalanceByCycle[];
  staking_balance: bigint;
  delegated_contracts: string[];
  delegated_balance: bigint;
  deactivated: boolean;
  grace_period: number;
  voting_power: number;
}

/** Codec of {@link DelegateInfo}. */
export const delegateInfo = obj(
  req("balance", mutez),
  req("frozen_balance", mutez),
  req("frozen_balance_by_cycle", frozenBalanceByCycles),
  req("staking_balance", mutez),
  req("delegated_contracts", list(contractId)),
  req("delegated_balance", mutez),
  req("deactivated", bool),
  req("grace_period", cycle),
  req("voting_power", int32),
);

/** The grace period of a registered delegate (`Delegate.grace_period`: a `get`). */
function gracePeriodOf(pc: ProtoContext, pkh: string): number {
  const g = gracePeriod(pc, pkh);
  if (g === undefined) throw storageError.error({ missing_key: desactivationPath(pkh), function: "get" });
  return g;
}

/** Everything about a registered delegate; `delegate.not_registered` otherwise. */
export function delegateInfoAt(pc: ProtoContext, pkh: string): DelegateInfo {
  checkDelegate(pc, pkh);
  return {
    balance: fullBalance(pc, pkh),
    frozen_balance: frozenBalance(pc, pkh),
    frozen_balance_by_cycle: frozenBalanceByCycle(pc, pkh),
    staking_balance: stakingBalance(pc, pkh),
    delegated_contracts: octezListOrder(delegatedContracts(pc, pkh)),
    delegated_balance: delegatedBalance(pc, pkh),
    deactivated: deactivated(pc, pkh),
    grace_period: gracePeriodOf(pc, pkh),
    voting_power: votingPower(pc, pkh),
  };
}

type Fact = { [K in keyof DelegateInfo]: { name: K; description: string; get(pc: ProtoContext, pkh: string): DelegateInfo[K] } }[keyof DelegateInfo];

const FACTS: readonly Fact[] = [
  {
    name: "frozen_balance",
    description: "Returns the total frozen balances of a given delegate, this includes the frozen deposits, rewards and fees.",
    get: frozenBalance,
  },
  {
    name: "frozen_balance_by_cycle",
    description: "Returns the frozen balances of a given delegate, indexed by the cycle by which it will be unfrozen",
    get: frozenBalanceByCycle,
  },
  {
    name: "staking_balance",
    description:
      "Returns the total amount of tokens delegated to a given delegate. This includes the balances of all the contracts that delegate to it, but also the balance of the delegate itself and its frozen fees and deposits. The rewards do not count in the delegated balance until they are unfrozen.",
    get: stakingBalance,
  },
  {
    name: "delegated_contracts",
    description: "Returns the list of contracts that delegate to a given delegate.",
    get: (pc, pkh) => octezListOrder(delegatedContracts(pc, pkh)),
  },
  {
    name: "delegated_balance",
    description:
      "Returns the balances of all the contracts that delegate to a given delegate. This excludes the delegate's own balance and its frozen balances.",
    get: delegatedBalance,
  },
  { name: "deactivated", description: "Tells whether the delegate is currently tagged as deactivated or not.", get: deactivated },
  {
    name: "grace_period",
    description:
      "Returns the cycle by the end of which the delegate might be deactivated if she fails to execute any delegate action. A deactivated delegate might be reactivated (without loosing any rolls) by simply re-registering as a delegate. For deactivated delegates, this value contains the cycle by which they were deactivated.",
    get: gracePeriodOf,
  },
  { name: "voting_power", description: "The number of rolls in the vote listings for a given delegate", get: votingPower },
];

/** The delegates services of Hangzhou. */
export function delegatesServices(): Directory<BlockCtx> {
  const D = ["context", "delegates"] as const;
  const fields = delegateInfo.fields;
  const dir = new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: [...D],
      description: "Lists all registered delegates.",
      query: query({ active: flag(), inactive: flag() }),
      output: list(publicKeyHash),
      handler: ({ ctx, query: q }) => {
        const pc = protoContextOf(ctx);
        const all = octezListOrder(listDelegates(pc));
        if (q.active && !q.inactive) return all.filter((d) => !deactivated(pc, d));
        if (q.inactive && !q.active) return all.filter((d) => deactivated(pc, d));
        return all;
      },
    }),
    service({
      method: "GET",
      path: [...D, pkhArg],
      description: "Everything about a delegate.",
      output: delegateInfo,
      handler: ({ ctx, params: [pkh] }) => delegateInfoAt(protoContextOf(ctx), pkh),
    }),
    service({
      method: "GET",
      path: [...D, pkhArg, "balance"],
      description: "Returns the full balance of a given delegate, including the frozen balances.",
      output: mutez,
      handler: ({ ctx, params: [pkh] }) => {
        const pc = protoContextOf(ctx);
        try {
          checkDelegate(pc, pkh);
        } catch (e) {
          if (e instanceof TezosError) throw e.withContext(balanceRpcNonDelegate.create({ pkh }));
          throw e;
        }
        return fullBalance(pc, pkh);
      },
    }),
  );
  for (const f of FACTS) {
    const codec = fields.find((x) => x.name === f.name)!.codec;
    dir.register(
      service({
        method: "GET",
        path: [...D, pkhArg, f.name],
        description: f.description,
        output: codec,
        handler: ({ ctx, params: [pkh] }) => {
          const pc = protoContextOf(ctx);
          checkDelegate(pc, pkh);
          return f.get(pc, pkh);
        },
      }),
    );
  }
  return dir;
}
