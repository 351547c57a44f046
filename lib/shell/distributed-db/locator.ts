/**
 * Block locators as Octez v12 computes them (`src/lib_base/block_locator.ml`, `compute` and its
 * `Step` generator; `src/lib_store/store.ml`, `compute_locator`): the head, then up to 200
 * ancestors at steps that grow with the distance, drawn from a seed that the two peers' ids and
 * the head's hash fix, so that a peer can check a locator's steps.
 *
 * Steps come by runs of ten: ten of 1, then ten of `s − r` for `s` = 2, 4, 8… where `r` is the
 * remainder (sign of the dividend, as OCaml's `Int32.rem`) of the seed's first four bytes (a
 * big-endian int32) by `s/2 + 1`, the seed being hashed again (SHA-256) at each draw. The first
 * seed is SHA-256(sender's peer id ‖ receiver's peer id ‖ head hash).
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { B58, b58decode } from "../../encoding/base58.ts";

/** Octez's `Store.max_locator_size`: ancestors in a locator at most. */
export const MAX_LOCATOR_SIZE = 200;

/** The two peers a locator is for: who sends it, who receives it (Octez `Block_locator.seed`). */
export interface LocatorSeed {
  /** The sender's peer id (`id…`). */
  readonly sender: string;
  /** The receiver's peer id (`id…`). */
  readonly receiver: string;
}

/**
 * Octez's step generator for the locator of `headHash` (`Block_locator.Step`): each call gives
 * the next step.
 */
export function locatorSteps(seed: LocatorSeed, headHash: string): () => number {
  let state = sha256(
    concat(b58decode(B58.cryptoboxPublicKeyHash, seed.sender), b58decode(B58.cryptoboxPublicKeyHash, seed.receiver), b58decode(B58.blockHash, headHash)),
  );
  let step = 1;
  let counter = 9;
  return () => {
    let gap = 0;
    if (step > 1) {
      const n = Math.trunc(step / 2) + 1;
      const x = new DataView(state.buffer, state.byteOffset, 4).getInt32(0, false);
      gap = x % n; // the sign of the dividend, as Int32.rem
      state = sha256(state);
    }
    const out = step - gap;
    if (counter === 0) {
      step *= 2;
      counter = 9;
    } else counter--;
    return out;
  };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What `computeLocatorHistory` reads of a chain. */
export interface LocatorChain {
  /**
   * The ancestor `distance` blocks below `hash`, or `undefined` when it is below what the store
   * keeps (Octez's `read_ancestor_hash_opt`); the genesis block is its own predecessor.
   */
  predecessor(hash: string, distance: number): string | undefined;
  /** The oldest block the store keeps (Octez's caboose), or the locator's lower bound. */
  readonly caboose: string;
}

/**
 * The history of a locator of `headHash` (Octez's `Block_locator.compute`): from the head, the
 * ancestor one step down, then one step down from it, and so on, at most `size` of them. Where
 * the store has no ancestor any more, the caboose closes the list (unless it is where the walk
 * stands); the genesis block (its own predecessor) closes it too.
 */
export function computeLocatorHistory(chain: LocatorChain, headHash: string, seed: LocatorSeed, size = MAX_LOCATOR_SIZE): string[] {
  const history: string[] = [];
  if (size <= 0) return history;
  const next = locatorSteps(seed, headHash);
  let current = headHash;
  for (let left = size; left > 0; left--) {
    const pred = chain.predecessor(current, next());
    if (pred === undefined) {
      if (current !== chain.caboose) history.push(chain.caboose);
      break;
    }
    if (pred === current) break;
    history.push(pred);
    current = pred;
  }
  return history;
}
