import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { command as commandCodec } from "../../lib/protocols/genesis/command.ts";
import { activationCommand, forgeActivation } from "../../lib/protocols/genesis/activation.ts";
import { applyWrites, genesisContextWrites } from "../../lib/protocols/genesis/context.ts";
import { genesisProtocol } from "../../lib/protocols/genesis/protocol.ts";
import { Chain } from "../../lib/shell/chain.ts";
import { chainIdOf, genesisBlock, SANDBOX_GENESIS } from "../../lib/shell/genesis.ts";
import { BlockValidator, headerBytes } from "../../lib/shell/validator.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import type { ShellHeader } from "../../lib/encoding/block-header.ts";

const ACTIVATOR = "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6";
const BOOTSTRAP1 = "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh";
const GENESIS = SANDBOX_GENESIS.block;
const T0 = Date.parse(SANDBOX_GENESIS.time) / 1000;
const UNKNOWN_PROTOCOL = "PsBabyM1eUXZseaJdmXFApDSBqj8YBfwELoxZHHW77EMcAbbwAS";

async function sandbox() {
  const kv = new MemoryStore();
  const prepare = (ctx: Parameters<Parameters<typeof genesisBlock>[2]>[0]) =>
    applyWrites(ctx, genesisContextWrites(SANDBOX_GENESIS.protocol, { genesis_pubkey: SANDBOX_GENESIS.genesisPubkey }));
  const chain = await Chain.open(kv, chainIdOf(SANDBOX_GENESIS), genesisBlock(kv, SANDBOX_GENESIS, prepare), "full");
  const validator = new BlockValidator(chain, (h) => (h === genesisProtocol.hash ? genesisProtocol : undefined));
  return { chain, validator };
}

/** An activation block on genesis, built the way tezos-client does: preapply, then sign. */
async function activation(validator: BlockValidator, chain: Chain, protocol: string, key = ACTIVATOR, edit?: (s: ShellHeader) => ShellHeader) {
  const cmd = activationCommand({ protocol, parameters: { hello: "world" } });
  const unsigned = new Uint8Array([...encodeBinary(commandCodec, cmd), ...new Uint8Array(64)]);
  const { shell } = await validator.preapply(chain.genesis, T0 + 1, unsigned, []);
  const finalShell = edit ? edit(shell) : shell;
  const signed = await forgeActivation({ chainId: chain.chainId, shellHeader: finalShell, protocol, parameters: { hello: "world" }, secretKey: key });
  return { shell: finalShell, bytes: signed.header };
}

async function refusal(p: Promise<unknown>): Promise<unknown[]> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TezosError) return e.toJson();
    throw e;
  }
  throw new Error("expected a refusal");
}

test("a signed activation block on genesis validates, is stored and becomes the head", async () => {
  const { chain, validator } = await sandbox();
  const { shell, bytes } = await activation(validator, chain, genesisProtocol.hash);
  assert.is(shell.level, 1);
  assert.equal(shell.fitness.map((f) => [...f]), [[0], [0, 0, 0, 0, 0, 0, 0, 1]]);
  const block = await validator.apply(bytes, []);
  assert.is(block.info.protocol, genesisProtocol.hash);
  assert.is(block.info.next_protocol, genesisProtocol.hash);
  const { head } = await chain.storeBlock(block);
  assert.is(head, true);
  assert.is(chain.head.hash, block.hash);
  assert.is(chain.head.header.context, shell.context);
  assert.is(chain.blockAtLevel(1)?.hash, block.hash);
});

test("an activation signed by another key is refused with the genesis protocol's error", async () => {
  const { chain, validator } = await sandbox();
  const { bytes } = await activation(validator, chain, genesisProtocol.hash, BOOTSTRAP1);
  const trace = (await refusal(validator.apply(bytes, []))) as Record<string, unknown>[];
  assert.is(trace[0]!["id"], "validator.invalid_block");
  assert.is(trace[0]!["error"], "economic_protocol_error");
  assert.equal(trace[0]!["trace"], [{ kind: "permanent", id: "proto.genesis.invalid_signature" }]);
});

test("shell checks refuse a wrong level, a non-increasing timestamp and fitness, and a wrong context", async () => {
  const { chain, validator } = await sandbox();
  const cases: [string, (s: ShellHeader) => ShellHeader, Record<string, unknown>][] = [
    ["level", (s) => ({ ...s, level: 2 }), { id: "validator.invalid_block", error: "invalid_level", expected: 1, found: 2 }],
    ["timestamp", (s) => ({ ...s, timestamp: T0 }), { id: "validator.invalid_block", error: "non_increasing_timestamp" }],
    ["fitness", (s) => ({ ...s, fitness: [] }), { id: "validator.invalid_block", error: "non_increasing_fitness" }],
    ["passes", (s) => ({ ...s, validation_pass: 4 }), { id: "validator.invalid_block", error: "unexpected_number_of_passes", found: 4 }],
    ["proto", (s) => ({ ...s, proto: 1 }), { id: "validator.invalid_block", error: "invalid_proto_level", expected: 0, found: 1 }],
    ["context", (s) => ({ ...s, context: chain.genesis.header.context }), { id: "node.state.block.inconsistent_context_hash" }],
  ];
  for (const [name, edit, expected] of cases) {
    const { bytes } = await activation(validator, chain, genesisProtocol.hash, ACTIVATOR, edit);
    const trace = (await refusal(validator.apply(bytes, []))) as Record<string, unknown>[];
    for (const [k, v] of Object.entries(expected)) assert.equal(trace[0]![k], v, `${name}: ${k}`);
  }
  assert.is(chain.head.hash, GENESIS);
});

test("operations that do not hash to the header's operations_hash are refused", async () => {
  const { chain, validator } = await sandbox();
  const { bytes } = await activation(validator, chain, genesisProtocol.hash);
  const trace = (await refusal(validator.apply(bytes, [[new Uint8Array(40)]]))) as Record<string, unknown>[];
  assert.is(trace[0]!["id"], "validator.inconsistent_operations_hash");
});

test("activating a protocol the node cannot run is refused as an unavailable protocol", async () => {
  const { chain, validator } = await sandbox();
  const err = await refusal(activation(validator, chain, UNKNOWN_PROTOCOL));
  assert.equal((err[0] as Record<string, unknown>)["id"], "validator.unavailable_protocol");
  assert.equal((err[0] as Record<string, unknown>)["missing_protocol"], UNKNOWN_PROTOCOL);
});

test("a block on an unknown predecessor is refused", async () => {
  const { chain, validator } = await sandbox();
  const { shell } = await activation(validator, chain, genesisProtocol.hash);
  const bytes = headerBytes({ ...shell, predecessor: "BLockGenesisGenesisGenesisGenesisGenesisd1f7bcGMoXy" }, new Uint8Array(0));
  const trace = (await refusal(validator.apply(bytes, []))) as Record<string, unknown>[];
  assert.is(trace[0]!["id"], "node.peer_validator.unknown_ancestor");
});

test.run();
