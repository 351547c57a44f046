/**
 * Fundraiser commitments (Octez `Commitment_storage`): `commitments/<blinded key hash hex>` holds
 * the amount an `activate_account` operation will credit.
 * @module
 */
import type { Commitment } from "../constants.ts";
import { commitmentPath, decodeTez, encodeTez } from "./layout.ts";
import type { ProtoContext } from "./proto-context.ts";

/** Stores the activation's commitments (`Commitment_storage.init`); a duplicate is `context.storage_error`. */
export function initCommitments(pc: ProtoContext, commitments: readonly Commitment[]): void {
  pc.atomically(() => {
    for (const c of commitments) pc.init(commitmentPath(c.blinded_public_key_hash), encodeTez(c.amount));
  });
}

/** The amount committed to a blinded key hash (`btz1…`), or `undefined`. */
export function findCommitment(pc: ProtoContext, blindedPkh: string): bigint | undefined {
  const b = pc.find(commitmentPath(blindedPkh));
  return b === undefined ? undefined : decodeTez(b);
}

/** Removes a commitment once activated (`remove_existing`). */
export function removeCommitment(pc: ProtoContext, blindedPkh: string): void {
  pc.removeExisting(commitmentPath(blindedPkh));
}
