/**
 * Delegation links and delegate registration (Octez `Delegate_storage`, first half): who a
 * contract delegates to (`contracts/index/<c>/delegate`), the reverse index
 * (`contracts/index/<d>/delegated/<c>`), the set of registered delegates (`delegates/…`), and
 * the roll moves a change of delegate implies (the whole balance leaves the old delegate and
 * joins the new one).
 * @module
 */
import {
  activeDelegate,
  currentDelegate,
  emptyDelegateAccount,
  noDeletion,
  notRegistered,
  unregisteredDelegate,
} from "./errors.ts";
import {
  contractOfSegment,
  contractPath,
  decodeManager,
  decodeTez,
  delegatedPath,
  delegatesPath,
  encodePkh,
  INITED,
  isImplicit,
  pkhOfSegments,
} from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";
import { addAmount, contractDelegate, isInactive, removeAmount, setActive } from "./roll.ts";

function balanceOf(pc: ProtoContext, contract: string): bigint {
  return decodeTez(pc.get(contractPath(contract, "balance")));
}

/** Adds a contract's balance to `delegate` and records the link (`link`). */
export function link(pc: ProtoContext, contract: string, delegate: string): void {
  const balance = balanceOf(pc, contract);
  addAmount(pc, delegate, balance);
  pc.add(delegatedPath(delegate, contract), INITED);
}

/** Removes a contract's balance from its delegate, if any, and the link (`unlink`). */
export function unlink(pc: ProtoContext, contract: string): void {
  const balance = balanceOf(pc, contract);
  const delegate = contractDelegate(pc, contract);
  if (delegate === undefined) return;
  removeAmount(pc, delegate, balance);
  pc.remove(delegatedPath(delegate, contract));
}

/** Whether `delegate` has a revealed key (`known`). */
export function knownDelegate(pc: ProtoContext, delegate: string): boolean {
  const b = pc.find(contractPath(delegate, "manager"));
  return b !== undefined && decodeManager(b).kind === "public_key";
}

/** Whether `delegate` is registered: its implicit account delegates to itself (`registered`). */
export function registeredDelegate(pc: ProtoContext, delegate: string): boolean {
  return contractDelegate(pc, delegate) === delegate;
}

/**
 * Sets the delegate of a new contract (`Delegate_storage.init`): the delegate must be known and
 * registered (`contract.manager.unregistered_delegate`), then the link is made.
 */
export function initDelegate(pc: ProtoContext, contract: string, delegate: string): void {
  pc.atomically(() => {
    if (!knownDelegate(pc, delegate) || !registeredDelegate(pc, delegate)) throw unregisteredDelegate.error({ hash: delegate });
    pc.init(contractPath(contract, "delegate"), encodePkh(delegate));
    link(pc, contract, delegate);
  });
}

/**
 * Changes a contract's delegate (`Delegate_storage.set`), as a delegation operation does.
 * `undefined` withdraws the delegation (`delegate.no_deletion` for a registered delegate). A
 * delegate must be known and registered, or be the contract itself (self-delegation registers
 * it, or reactivates an inactive one; `delegate.already_active` if active); re-delegating to the
 * current delegate is `delegate.unchanged`; a registered delegate cannot delegate elsewhere
 * (`delegate.no_deletion`); an empty account cannot register (`delegate.empty_delegate_account`).
 * Self-delegation adds the key hash to `delegates` and refreshes the grace period (`set_active`).
 */
export function setDelegate(pc: ProtoContext, contract: string, delegate: string | undefined): void {
  pc.atomically(() => {
    const implicit = isImplicit(contract);
    if (delegate === undefined) {
      if (implicit && registeredDelegate(pc, contract)) throw noDeletion.error({ delegate: contract });
      unlink(pc, contract);
      pc.remove(contractPath(contract, "delegate"));
      return;
    }
    const known = knownDelegate(pc, delegate);
    const registered = registeredDelegate(pc, delegate);
    const selfDelegation = implicit && contract === delegate;
    if (!known || !(registered || selfDelegation)) throw unregisteredDelegate.error({ hash: delegate });
    const current = contractDelegate(pc, contract);
    if (current === delegate) {
      if (!selfDelegation) throw currentDelegate.error();
      if (!isInactive(pc, delegate)) throw activeDelegate.error();
    }
    if (implicit && !selfDelegation && registeredDelegate(pc, contract)) throw noDeletion.error({ delegate: contract });
    if (selfDelegation && !pc.mem(contractPath(contract, "balance"))) throw emptyDelegateAccount.error({ delegate });
    unlink(pc, contract);
    pc.add(contractPath(contract, "delegate"), encodePkh(delegate));
    link(pc, contract, delegate);
    if (selfDelegation) {
      pc.add(delegatesPath(delegate), INITED);
      setActive(pc, delegate);
    }
  });
}

/** The contracts delegating to `delegate`, in context order (`delegated_contracts`). */
export function delegatedContracts(pc: ProtoContext, delegate: string): string[] {
  return pc.listKeys(delegatedPath(delegate)).map(contractOfSegment);
}

/** The registered delegates in context order: ed25519, then p256, then secp256k1, by hash bytes. */
export function listDelegates(pc: ProtoContext): string[] {
  const out: string[] = [];
  for (const curve of pc.listKeys(delegatesPath())) {
    for (const hex of pc.listKeys([...delegatesPath(), curve])) out.push(pkhOfSegments(curve, hex));
  }
  return out;
}

/** Whether `pkh` is in the registered delegates set. */
export function isRegisteredDelegate(pc: ProtoContext, pkh: string): boolean {
  return pc.mem(delegatesPath(pkh));
}

/** `delegate.not_registered` unless `pkh` is a registered delegate (`check_delegate`). */
export function checkDelegate(pc: ProtoContext, pkh: string): void {
  if (!isRegisteredDelegate(pc, pkh)) throw notRegistered.error({ pkh });
}
