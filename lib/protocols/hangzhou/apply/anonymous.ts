/**
 * Anonymous operations of validation pass 2 that need no signature (Octez `apply.ml`): seed
 * nonce revelations, which earn the including baker a tip, and activations of fundraiser
 * accounts from their commitments.
 * @module
 */
import { B58, b58decode, b58encode } from "../../../encoding/base58.ts";
import { publicKeyHash as pkhCodec } from "../../../encoding/keys.ts";
import { obj, req } from "../../../encoding/object.ts";
import type { BalanceUpdate } from "../../../encoding/hangzhou/receipts/balance-updates.ts";
import type { ActivateAccount, SeedNonceRevelation } from "../../../encoding/hangzhou/operation.ts";
import { blake2bKeyed } from "../../../crypto/blake2b.ts";
import type { ErrorDefinition } from "../../../errors/mod.ts";
import { givenLevel } from "../level.ts";
import { protoError } from "../proto-error.ts";
import { findCommitment, removeCommitment } from "../storage/commitment.ts";
import { credit } from "../storage/contract.ts";
import { revealNonce } from "../storage/nonce.ts";
import type { ProtoContext } from "../storage/proto-context.ts";

/** `operation.invalid_activation`. */
export const invalidActivation: ErrorDefinition<{ pkh: string }> = protoError({
  id: "operation.invalid_activation",
  kind: "permanent",
  title: "Invalid activation",
  description: "The given key and secret do not correspond to any existing preallocated contract",
  fields: obj(req("pkh", pkhCodec)),
});

/** Applies a seed nonce revelation; the tip goes to the block's rewards. */
export function applySeedNonceRevelation(pc: ProtoContext, baker: string, content: SeedNonceRevelation): { kind: "seed_nonce_revelation"; balance_updates: BalanceUpdate[] } {
  pc.atomically(() => revealNonce(pc, givenLevel(pc.eras, content.level), content.nonce));
  const tip = pc.constants.seed_nonce_revelation_tip;
  pc.addRewards(tip);
  return {
    kind: "seed_nonce_revelation",
    balance_updates: [{ kind: "freezer", category: "rewards", delegate: baker, cycle: pc.level.cycle, change: tip, origin: "block" }],
  };
}

/** The blinded key hash (`btz1…`) of an ed25519 key hash and its activation secret. */
export function blindedPublicKeyHash(pkh: string, secret: Uint8Array): string {
  return b58encode(B58.blindedPublicKeyHash, blake2bKeyed(20, secret, b58decode(B58.ed25519PublicKeyHash, pkh)));
}

/** Activates a fundraiser account: its commitment is credited to the account and removed. */
export function applyActivateAccount(pc: ProtoContext, content: ActivateAccount): { kind: "activate_account"; balance_updates: BalanceUpdate[] } {
  const blinded = blindedPublicKeyHash(content.pkh, content.secret);
  const amount = findCommitment(pc, blinded);
  if (amount === undefined) throw invalidActivation.error({ pkh: content.pkh });
  pc.atomically(() => {
    removeCommitment(pc, blinded);
    credit(pc, content.pkh, amount);
  });
  return { kind: "activate_account", balance_updates: [{ kind: "contract", contract: content.pkh, change: amount, origin: "block" }] };
}
