/**
 * A sandbox chain with a prevalidator and a manual baker holding bootstrap1..4, so that
 * bootstrap5's endorsements are operations the baker does not make itself.
 */
import { type Baker, BOOTSTRAP_SECRET_KEYS, createBaker, forgeEndorsementWithSlot, keyRing, planBlock } from "../../lib/baker/mod.ts";
import { parseSecretKey, type SecretKey } from "../../lib/crypto/keys.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { HANGZHOU, hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import type { Block } from "../../lib/shell/chain.ts";
import { countingProtocol } from "../support/counting-protocol.ts";
import type { Protocol } from "../../lib/shell/protocol.ts";
import { hangzhouMempoolPlugin } from "../../lib/protocols/hangzhou/plugin.ts";
import { Prevalidator } from "../../lib/shell/prevalidator.ts";
import { checkout } from "../../lib/store/context/mod.ts";
import { openSandbox, type Sandbox } from "../baker/sandbox.ts";

/** bootstrap5's secret key (the delegate the test baker does not hold). */
export const SK5: SecretKey = parseSecretKey(BOOTSTRAP_SECRET_KEYS[4]!);
/** bootstrap5's address. */
export const PKH5 = [...keyRing([SK5]).keys()][0]!;

/** The wired sandbox. */
export interface MempoolSandbox extends Sandbox {
  readonly prevalidator: Prevalidator;
  readonly baker: Baker;
  /** Number of times the prevalidator reported an applied operation. */
  readonly appliedCount: () => number;
  /** Number of times the prevalidator asked the protocol to apply an operation (successful or not). */
  readonly applications: () => number;
}

/**
 * Opens the sandbox, starts the prevalidator, and bakes to level 3 (bootstrap1..4, manual mode).
 * `quota` gives the prevalidator other validation pass quotas than Hangzhou's.
 */
export async function openMempoolSandbox(options: { pending?: boolean; quota?: Protocol["operationListQuota"] } = {}): Promise<MempoolSandbox> {
  const sb = await openSandbox();
  let applications = 0;
  // the prevalidator's view of the protocols: counted, and with other quotas when asked
  const view = (p: Protocol): Protocol => {
    const counted = countingProtocol(p, () => applications++);
    return options.quota === undefined || p.hash !== HANGZHOU ? counted : { ...counted, operationListQuota: options.quota };
  };
  const protocols = new Map([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, view(p)]));
  let applied = 0;
  const prevalidator = new Prevalidator({
    chain: sb.chain,
    validator: sb.validator,
    protocols: (h) => protocols.get(h),
    plugins: (h) => (h === HANGZHOU ? hangzhouMempoolPlugin : undefined),
    onApplied: () => applied++,
  });
  await prevalidator.start();
  const keys = BOOTSTRAP_SECRET_KEYS.slice(0, 4).map(parseSecretKey);
  const own = new Set(keyRing(keys).keys());
  const baker = createBaker({
    chain: sb.chain,
    validator: sb.validator,
    keys,
    mode: "manual",
    ...(options.pending === false ? {} : { pending: (head: Block) => prevalidator.pending(head, { excludeEndorsers: own }) }),
  });
  await baker.start();
  await prevalidator.idle();
  return {
    ...sb,
    prevalidator,
    baker,
    appliedCount: () => applied,
    applications: () => applications,
    async close() {
      await baker.stop();
      await prevalidator.stop();
      await sb.close();
    },
  };
}

/** The smallest endorsing slot of `sk` for `block`, if it has one. */
export function slotOf(sb: Sandbox, sk: SecretKey, block: Block): number | undefined {
  const context = checkout(sb.chain.store.kv, b58decode(B58.contextHash, block.header.context))!;
  const plan = planBlock({
    context,
    head: { hash: block.hash, level: block.header.level, timestamp: block.header.timestamp, endorsable: true },
    keys: keyRing([sk]),
    now: Math.floor(Date.now() / 1000),
  });
  return plan.endorsements[0]?.slots[0];
}

/** `sk`'s endorsement of the current head with slot `slot` (its smallest by default); bakes until it has one. */
export async function endorsement(sb: MempoolSandbox, sk: SecretKey = SK5, slot?: number): Promise<{ bytes: Uint8Array; head: Block; slot: number }> {
  for (;;) {
    const head = sb.chain.head;
    const s = slotOf(sb, sk, head);
    if (s !== undefined) {
      const chainId = b58decode(B58.chainId, sb.chain.chainId);
      return { bytes: await forgeEndorsementWithSlot(sk, chainId, head.hash, head.header.level, slot ?? s), head, slot: slot ?? s };
    }
    await sb.baker.bake();
    await sb.prevalidator.idle();
  }
}
