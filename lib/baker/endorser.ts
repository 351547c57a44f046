/**
 * The endorser of a node on a network, as Octez's endorser daemon: at each new Hangzhou head H,
 * every held delegate with endorsing rights at H's level signs an endorsement of H, injected
 * into the node's mempool, whence it travels to the peers, whose bakers include it in the next
 * block. Without it, a node holding some of the delegates' keys (`--baker-keys`) endorses only in
 * the blocks it bakes itself, and every other node's block misses their endorsing power (and its
 * minimal delay grows with each missing slot).
 *
 * One level is endorsed once: a head at a level already endorsed (a branch switch at the same
 * level) is not, since two endorsements at one level are a double endorsement. The heads before
 * the endorser starts are not endorsed (a restart does not endorse again what it may have).
 * Heads that are superseded before their turn are skipped: only the latest is endorsed.
 *
 * @example
 * ```ts
 * const endorser = startEndorser({ chain, keys: keyRing(keys), inject: (bytes) => prevalidator.inject(bytes) });
 * await endorser.stop();
 * ```
 * @module
 */
import { B58, b58decode } from "../encoding/base58.ts";
import { HANGZHOU } from "../protocols/hangzhou/protocol.ts";
import { ProtoContext } from "../protocols/hangzhou/storage/proto-context.ts";
import type { Block, Chain } from "../shell/chain.ts";
import { checkout } from "../store/context/mod.ts";
import { type Logger, SILENT_LOGGER } from "../log.ts";
import type { HeldKey } from "./keys.ts";
import { forgeEndorsementWithSlot } from "./operations.ts";
import { heldEndorsements } from "./plan.ts";

/** What {@link startEndorser} needs. */
export interface EndorserOptions {
  readonly chain: Chain;
  /** The held keys by `tz…`. */
  readonly keys: ReadonlyMap<string, HeldKey>;
  /** Injects an operation into the node's mempool; its hash (a refusal throws). */
  readonly inject: (bytes: Uint8Array) => Promise<string>;
  /** Where each endorsement injected, or refused, is told. */
  readonly log?: Logger;
}

/** A running endorser. */
export interface Endorser {
  /** The highest level endorsed so far (the head's level at start when none yet). */
  readonly endorsedLevel: number;
  /** Stops following the heads; resolves once the head being endorsed, if any, is done. */
  stop(): Promise<void>;
}

/** Starts endorsing the chain's new heads with the held keys (see the module documentation). */
export function startEndorser(options: EndorserOptions): Endorser {
  const { chain, keys } = options;
  const log = options.log ?? SILENT_LOGGER;
  const chainId = b58decode(B58.chainId, chain.chainId);
  let endorsedLevel = chain.head.header.level;
  let stopped = false;
  const heads = chain.heads.subscribe();

  async function endorse(head: Block): Promise<void> {
    if (head.info.protocol !== HANGZHOU || head.header.level <= endorsedLevel) return;
    endorsedLevel = head.header.level;
    const context = checkout(chain.store.kv, b58decode(B58.contextHash, head.header.context));
    if (context === undefined) return;
    const pc = ProtoContext.prepare(context, { level: head.header.level + 1, predecessorTimestamp: head.header.timestamp, timestamp: head.header.timestamp, fitness: 0n });
    for (const { key, slots } of heldEndorsements(pc, head.header.level, keys)) {
      const bytes = await forgeEndorsementWithSlot(key.secretKey, chainId, head.hash, head.header.level, slots[0]!);
      try {
        const hash = await options.inject(bytes);
        log.debug("endorsement_injected", { block_level: head.header.level, delegate: key.pkh, slots: slots.length, hash });
      } catch (e) {
        // a head already replaced (outdated), a mempool that took it from a peer first: not this node's fault
        log.debug("endorsement_refused", { block_level: head.header.level, delegate: key.pkh, msg: e instanceof Error ? e.message : String(e) });
      }
    }
  }

  const running = (async () => {
    for await (const head of heads) {
      if (stopped) break;
      // a newer head already waiting supersedes this one
      if (chain.head.hash !== head.hash && chain.head.header.level > head.header.level) continue;
      try {
        await endorse(head);
      } catch (e) {
        log.warn("endorser_failed", { block_level: head.header.level, msg: e instanceof Error ? e.message : String(e) });
      }
    }
  })();

  return {
    get endorsedLevel() {
      return endorsedLevel;
    },
    async stop() {
      stopped = true;
      await heads.return?.();
      await running;
    },
  };
}
