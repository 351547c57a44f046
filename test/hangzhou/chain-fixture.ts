/**
 * A sandbox chain activated with Hangzhou, and a hand-built block maker whose every part can be
 * bent, to test the protocol's rules (tests only).
 */
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { hangzhouBlockMetadata, type HangzhouBlockMetadata } from "../../lib/encoding/hangzhou/receipts/block-metadata.ts";
import { protocolData, type ProtocolDataContents } from "../../lib/encoding/hangzhou/block-header.ts";
import { ZERO_SIGNATURE } from "../../lib/encoding/keys.ts";
import type { ShellHeader } from "../../lib/encoding/block-header.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { formatPublicKeyHash, formatSignature, parseSecretKey, publicKeyHash, publicKeyOf, type SecretKey } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { blockWatermark } from "../../lib/crypto/watermark.ts";
import { activateProtocol } from "../../lib/baker/activate.ts";
import { forgeEndorsementWithSlot } from "../../lib/baker/operations.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { signedHeaderBytes } from "../../lib/protocols/hangzhou/apply/baking.ts";
import { hangzhouProtocol } from "../../lib/protocols/hangzhou/protocol.ts";
import { bakingRightsOwner, endorsementRights } from "../../lib/protocols/hangzhou/rights.ts";
import { sandboxParameters } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";
import { ProtoContext } from "../../lib/protocols/hangzhou/storage/proto-context.ts";
import { contextRightsSource } from "../../lib/protocols/hangzhou/storage/rights-source.ts";
import { levelFromRaw } from "../../lib/protocols/hangzhou/level.ts";
import { minimalValidTime } from "../../lib/protocols/hangzhou/timing.ts";
import { fitnessCounter } from "../../lib/protocols/hangzhou/apply/baking.ts";
import { Chain, type Block } from "../../lib/shell/chain.ts";
import type { Protocol } from "../../lib/shell/protocol.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { BlockValidator, headerBytes } from "../../lib/shell/validator.ts";
import { checkout, type Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";

/** Secret keys of bootstrap1..5. */
export const BOOTSTRAP_KEYS = [
  "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh",
  "edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo",
  "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ",
  "edsk2uqQB9AY4FvioK2YMdfmyMrer5R8mGFyuaLLFfSRo8EoyNdht3",
  "edsk4QLrcijEffxV31gGdN2HU7UpyJjA8drFoNcmnB28n89YjPNRFm",
].map(parseSecretKey);

const byPkh = new Map(BOOTSTRAP_KEYS.map((k) => [formatPublicKeyHash(publicKeyHash(publicKeyOf(k))), k]));

/** What a test may bend in a block. */
export interface BlockSpec {
  priority?: number;
  /** Seconds after the minimal valid time (negative: too early). */
  delay?: number;
  endorse?: boolean;
  contents?: Partial<ProtocolDataContents>;
  signer?: SecretKey;
  shell?: (s: ShellHeader) => ShellHeader;
  /** The block to build on (the head when absent). */
  on?: Block;
  /** Operations put in validation pass 0 after the regular endorsements. */
  extra?: Uint8Array[];
  /** Operations of validation pass 2 (anonymous operations). */
  anonymous?: Uint8Array[];
  /** Operations of validation pass 3 (manager operations). */
  managers?: Uint8Array[];
}

/**
 * A sandbox chain with Hangzhou activated at level 1. `wrap` stands between the validator and
 * each protocol (to count applications, say).
 */
export async function hangzhouChain(options: { wrap?: (p: Protocol) => Protocol } = {}) {
  const kv = new MemoryStore();
  const prepare = (ctx: Context) => applyWrites(ctx, genesisContextWrites(SANDBOX_GENESIS.protocol, { genesis_pubkey: SANDBOX_GENESIS.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(SANDBOX_GENESIS), genesisBlock(kv, SANDBOX_GENESIS, prepare), "full");
  const wrap = options.wrap ?? ((p: Protocol) => p);
  const protocols = new Map([genesisProtocol, hangzhouProtocol].map((p) => [p.hash, wrap(p)]));
  const validator = new BlockValidator(chain, (h) => protocols.get(h));
  const t1 = chain.genesis.header.timestamp + 1;
  await activateProtocol({ chain, validator, protocol: hangzhouProtocol.hash, parameters: sandboxParameters(), timestamp: t1 });
  const chainId = b58decode(B58.chainId, chain.chainId);

  const contextOf = (b: Block) => checkout(kv, b58decode(B58.contextHash, b.header.context))!;
  const protoAt = (b: Block, level = b.header.level + 1) =>
    ProtoContext.prepare(contextOf(b), { level, predecessorTimestamp: b.header.timestamp, timestamp: b.header.timestamp, fitness: fitnessCounter(b.header.fitness) });

  /** Builds a block on the head as the spec says; its bytes and operations, not injected. */
  async function build(spec: BlockSpec = {}) {
    const head = spec.on ?? chain.head;
    const pc = protoAt(head);
    const src = contextRightsSource(pc);
    const priority = spec.priority ?? 0;
    const owner = formatPublicKeyHash(publicKeyHash(bakingRightsOwner(src, pc.level, priority)));
    const endorsements: Uint8Array[] = [];
    let power = 0;
    if ((spec.endorse ?? true) && head.header.level >= 2) {
      const rights = endorsementRights(src, levelFromRaw(pc.eras, head.header.level), pc.constants.endorsers_per_block);
      for (const [pkh, r] of rights) {
        endorsements.push(await forgeEndorsementWithSlot(byPkh.get(pkh)!, chainId, head.hash, head.header.level, r.slots[0]!));
        power += r.slots.length;
      }
    }
    const timestamp = minimalValidTime(pc.constants, priority, power, head.header.timestamp) + (spec.delay ?? 0);
    const contents: ProtocolDataContents = {
      priority,
      proof_of_work_nonce: new Uint8Array(8),
      liquidity_baking_escape_vote: false,
      ...(pc.level.expected_commitment ? { seed_nonce_hash: "nceUFoeQDgkJCmzdMWh19ZjBYqQD3N9fe6bXQ1ZsUKKvMn7iun5Z3" } : {}),
      ...spec.contents,
    };
    const operations = [[...endorsements, ...(spec.extra ?? [])], [], spec.anonymous ?? [], spec.managers ?? []];
    const unsigned = encodeBinary(protocolData, { ...contents, signature: ZERO_SIGNATURE });
    const { shell } = await validator.preapply(head, timestamp, unsigned, operations);
    const finalShell = spec.shell ? spec.shell(shell) : shell;
    const signer = spec.signer ?? byPkh.get(owner)!;
    const sig = await sign(signer, signedHeaderBytes({ ...finalShell, ...contents, signature: ZERO_SIGNATURE }), blockWatermark(chainId));
    const bytes = headerBytes(finalShell, encodeBinary(protocolData, { ...contents, signature: formatSignature(sig) }));
    return { bytes, operations, owner, power, timestamp };
  }

  /** Builds and injects a block; its hash. */
  async function bake(spec: BlockSpec = {}) {
    const b = await build(spec);
    return validator.inject(b.bytes, b.operations);
  }

  /** The Hangzhou metadata of a stored block. */
  const metadataOf = (b: Block): HangzhouBlockMetadata => decodeBinary(hangzhouBlockMetadata, b.info.metadata!);

  /** The endorsement rights of a level, read on the head's context. */
  const rightsAt = (level: number) => {
    const pc = protoAt(chain.head);
    return endorsementRights(contextRightsSource(pc), levelFromRaw(pc.eras, level), pc.constants.endorsers_per_block);
  };

  return { kv, chain, validator, chainId, build, bake, metadataOf, protoAt, contextOf, rightsAt, keyOf: (pkh: string) => byPkh.get(pkh)! };
}
