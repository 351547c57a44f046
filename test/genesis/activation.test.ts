/**
 * Signing, checking and applying the activation block. The reference is a real level-1 block of
 * an Octez sandbox (tezedge's test resource, see `vectors/`): signed by the activator key, which
 * lets the forging be checked byte for byte (Ed25519 signatures are deterministic).
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { formatPublicKey, parsePublicKey, publicKeyFromBinary } from "../../lib/crypto/keys.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import { shellHeader as shellHeaderCodec, type ShellHeader } from "../../lib/encoding/block-header.ts";
import { bsonJson } from "../../lib/encoding/bson.ts";
import { decodeBinary, encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { defaultRegistry, TezosError } from "../../lib/errors/mod.ts";
import {
  activationCommand,
  activationFitness,
  activationMessage,
  beginApplication,
  beginConstruction,
  blockHeader,
  checkActivation,
  DEFAULT_GENESIS_KEY,
  finalizeBlock,
  forgeActivation,
  genesisContextWrites,
  genesisKey,
  GENESIS_PROTOCOL,
  initGenesisContext,
  invalidSignature,
  MAX_BLOCK_LENGTH,
  parsingError,
  protocolParametersBytes,
  sandboxParameterBytes,
  testChainForking,
  type Command,
} from "../../lib/protocols/genesis/mod.ts";
import { emptyContext, type Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { rejects, throwsA } from "./throws.ts";

const test = suite("genesis activation");
const vector = JSON.parse(readFileSync(new URL("./vectors/tezedge-sandbox-block-level1.json", import.meta.url), "utf8"));
const hangzhouParameters: Json = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/011-hangzhou-protocol-parameters.json", import.meta.url), "utf8"),
);
const ACTIVATOR_SK = "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6";
const ACTIVATOR_PK = "edpkuSLWfVU1Vq7Jg9FucPyKmma6otcMHac9zG4oU1KMHSTBpJuGQ2";
const BOOTSTRAP1_PK = "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav";
const CHAIN = "NetXdQprcVkpaWU";
const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
/** The sandbox file of tezt: the activator is the genesis key. */
const SANDBOX: Json = { genesis_pubkey: ACTIVATOR_PK };

const header = fromHex(vector.header_hex);
const shellBytes = header.subarray(0, 131);
const realProtocolData = header.subarray(131);
const real = decodeBinary(blockHeader, header);
const shell: ShellHeader = decodeBinary(shellHeaderCodec, shellBytes);

/** The sandbox genesis context: sandbox parameter naming the activator, version, protocol, test chain. */
function genesisContext(sandbox?: Json): Context {
  let ctx = emptyContext(new MemoryStore());
  for (const w of genesisContextWrites(GENESIS_PROTOCOL, sandbox)) ctx = ctx.set(w.path, w.value);
  return ctx;
}

async function traceId(p: Promise<unknown>): Promise<string> {
  const e = await rejects(() => p, TezosError);
  assert.is(e.trace.length, 1);
  return e.trace[0]!.id;
}

test("the error ids carry the genesis environment's prefix and are registered", () => {
  assert.is(parsingError.id, "proto.genesis.parsing_error");
  assert.is(invalidSignature.id, "proto.genesis.invalid_signature");
  assert.is(parsingError.kind, "permanent");
  assert.equal(invalidSignature.error().toJson(), [{ kind: "permanent", id: "proto.genesis.invalid_signature" }]);
  assert.is(defaultRegistry.get("proto.genesis.invalid_signature"), invalidSignature);
});

test("the real activation block is signed by the activator over shell header ‖ command", async () => {
  const data = await checkActivation({ chainId: CHAIN, shellHeader: shellBytes, protocolData: realProtocolData, genesisKey: ACTIVATOR_PK });
  assert.is(data.content.hash, "PsCARTHAGazKbHtnKfLzQg3kms52kSRpgnDY982a9oYsSXRLQEb");
  const again = await checkActivation({ chainId: b58decode(B58.chainId, CHAIN), shellHeader: shell, protocolData: realProtocolData, genesisKey: parsePublicKey(ACTIVATOR_PK) });
  assert.equal(again, data);
});

test("forgeActivation() rebuilds the real activation block byte for byte", async () => {
  const parameters = decodeBinary(bsonJson(), real.content.protocol_parameters);
  const signed = await forgeActivation({ chainId: CHAIN, shellHeader: shell, protocol: real.content.hash, fitness: 1, parameters, secretKey: ACTIVATOR_SK });
  assert.is(toHex(signed.header), vector.header_hex);
  assert.is(toHex(signed.protocolData), toHex(realProtocolData));
  assert.is(signed.signature, real.signature);
  assert.equal(signed.command, real.content);
});

test("a wrong key, another chain, a tampered parameter or a tampered shell header is an invalid signature", async () => {
  const ok = { chainId: CHAIN, shellHeader: shellBytes, protocolData: realProtocolData, genesisKey: ACTIVATOR_PK };
  assert.is(await traceId(checkActivation({ ...ok, genesisKey: BOOTSTRAP1_PK })), "proto.genesis.invalid_signature");
  assert.is(await traceId(checkActivation({ ...ok, genesisKey: DEFAULT_GENESIS_KEY })), "proto.genesis.invalid_signature");
  assert.is(await traceId(checkActivation({ ...ok, chainId: "NetXjD3HPJJjmcd" })), "proto.genesis.invalid_signature");
  const tampered = realProtocolData.slice();
  tampered[200] ^= 0x01; // a byte inside the BSON parameters
  assert.is(await traceId(checkActivation({ ...ok, protocolData: tampered })), "proto.genesis.invalid_signature");
  const later = shellBytes.slice();
  later[44] ^= 0x01; // the timestamp
  assert.is(await traceId(checkActivation({ ...ok, shellHeader: later })), "proto.genesis.invalid_signature");
});

test("protocol data that is not a signed command is a parsing error", async () => {
  const ok = { chainId: CHAIN, shellHeader: shellBytes, genesisKey: ACTIVATOR_PK };
  assert.is(await traceId(checkActivation({ ...ok, protocolData: realProtocolData.subarray(0, 80) })), "proto.genesis.parsing_error");
  const badTag = realProtocolData.slice();
  badTag[0] = 0x02;
  assert.is(await traceId(checkActivation({ ...ok, protocolData: badTag })), "proto.genesis.parsing_error");
  assert.is(await traceId(checkActivation({ ...ok, protocolData: new Uint8Array(0) })), "proto.genesis.parsing_error");
});

test("bad arguments are TypeErrors and RangeErrors, not protocol errors", async () => {
  const ok = { chainId: CHAIN, shellHeader: shellBytes, protocolData: realProtocolData, genesisKey: ACTIVATOR_PK };
  await rejects(() => checkActivation({ ...ok, chainId: "NetX" }), TypeError);
  await rejects(() => checkActivation({ ...ok, chainId: new Uint8Array(3) }), RangeError);
  await rejects(() => checkActivation({ ...ok, genesisKey: "edpk" }), TypeError);
  await rejects(() => checkActivation({ ...ok, protocolData: "00" as unknown as Uint8Array }), TypeError);
  await rejects(() => forgeActivation({ chainId: CHAIN, shellHeader: shell, protocol: "Pt", parameters: {}, secretKey: ACTIVATOR_SK }), TypeError);
  await rejects(() => forgeActivation({ chainId: CHAIN, shellHeader: shell, protocol: HANGZHOU, parameters: {}, secretKey: "edsk" }), TypeError);
  throwsA(() => activationFitness(1.5), TypeError);
  throwsA(() => activationFitness(1n << 63n), RangeError);
});

test("the client's fitness argument n becomes [00, int64be(n)]", () => {
  assert.equal(activationFitness(1).map(toHex), ["00", "0000000000000001"]);
  assert.equal(activationFitness(-1n).map(toHex), ["00", "ffffffffffffffff"]);
  assert.equal(activationCommand({ protocol: HANGZHOU, parameters: {} }).fitness.map(toHex), ["00", "0000000000000001"]);
});

test("a Hangzhou activation signed with the activator key checks, and its parameters are the BSON of the JSON file", async () => {
  const unsignedShell: ShellHeader = { ...shell, timestamp: 1_640_995_200, fitness: activationFitness(1) };
  const signed = await forgeActivation({ chainId: CHAIN, shellHeader: unsignedShell, protocol: HANGZHOU, fitness: 1, parameters: hangzhouParameters, secretKey: ACTIVATOR_SK });
  assert.equal(signed.command.protocol_parameters, protocolParametersBytes(hangzhouParameters));
  assert.equal(decodeBinary(bsonJson(), signed.command.protocol_parameters), hangzhouParameters);
  const data = await checkActivation({ chainId: CHAIN, shellHeader: unsignedShell, protocolData: signed.protocolData, genesisKey: ACTIVATOR_PK });
  assert.is(data.content.hash, HANGZHOU);
  assert.is(data.signature, signed.signature);
  const json = blockHeader.toJson(decodeBinary(blockHeader, signed.header)) as { content: { [k: string]: Json } };
  assert.equal(Object.keys(json.content), ["command", "hash", "fitness", "protocol_parameters"]);
  assert.is(json.content["protocol_parameters"], toHex(protocolParametersBytes(hangzhouParameters)));
});

test("applying the activation writes the parameters and the next protocol, with the command's fitness", async () => {
  const ctx = genesisContext(SANDBOX);
  const result = await beginApplication({ chainId: CHAIN, context: ctx, shellHeader: shell, protocolData: realProtocolData });
  assert.equal(result.context.get(["protocol_parameters"]), real.content.protocol_parameters);
  assert.is(toHex(result.context.get(["protocol"])!), toHex(b58decode(B58.protocolHash, "PsCARTHAGazKbHtnKfLzQg3kms52kSRpgnDY982a9oYsSXRLQEb")));
  assert.equal(result.context.get(["test_chain"]), Uint8Array.of(0));
  assert.equal(result.fitness.map(toHex), ["00", "0000000000000001"]);
  assert.is(result.message, "activate PsCARTHAGazK");
  assert.is(result.maxOperationsTtl, 0);
  assert.is(result.lastAllowedForkLevel, 1);
  assert.is(result.protocolData.content.hash, "PsCARTHAGazKbHtnKfLzQg3kms52kSRpgnDY982a9oYsSXRLQEb");
  // The predecessor's context is untouched.
  assert.is(toHex(ctx.get(["protocol"])!), toHex(b58decode(B58.protocolHash, GENESIS_PROTOCOL)));
  assert.is(ctx.get(["protocol_parameters"]), undefined);
  assert.equal(finalizeBlock(result), { result, metadata: undefined });
});

test("without a sandbox key the default genesis key is required, so the activator's block is refused", async () => {
  const ctx = genesisContext();
  assert.is(formatPublicKey(genesisKey(ctx)), DEFAULT_GENESIS_KEY);
  assert.is(await traceId(beginApplication({ chainId: CHAIN, context: ctx, shellHeader: shell, protocolData: realProtocolData })), "proto.genesis.invalid_signature");
  // A sandbox JSON with other fields is ignored too, as Octez's strict object decoding does.
  const loose = genesisContext({ genesis_pubkey: ACTIVATOR_PK, extra: 1 });
  assert.is(formatPublicKey(genesisKey(loose)), DEFAULT_GENESIS_KEY);
});

test("a context the genesis protocol did not initialise is refused", async () => {
  const bare = emptyContext(new MemoryStore()).set(["protocol"], b58decode(B58.protocolHash, GENESIS_PROTOCOL));
  const e = await rejects(() => beginApplication({ chainId: CHAIN, context: bare, shellHeader: shell, protocolData: realProtocolData }), TezosError);
  assert.equal(e.toJson(), [{ kind: "temporary", id: "failure", msg: "Internal error: uninitialized context." }]);
  const other = genesisContext(SANDBOX).set(["version"], new TextEncoder().encode("alpha"));
  const e2 = await rejects(() => beginApplication({ chainId: CHAIN, context: other, shellHeader: shell, protocolData: realProtocolData }), TezosError);
  assert.equal(e2.toJson(), [{ kind: "temporary", id: "failure", msg: "Internal error: incompatible protocol version" }]);
});

test("init tags the context and takes the genesis key from the BSON sandbox parameter, once", () => {
  const raw = emptyContext(new MemoryStore()).set(["sandbox_parameter"], sandboxParameterBytes({ genesis_pubkey: ACTIVATOR_PK }));
  const ctx = initGenesisContext(raw);
  assert.is(new TextDecoder().decode(ctx.get(["version"])!), "genesis");
  assert.is(formatPublicKey(publicKeyFromBinary(ctx.get(["genesis_key"])!)), ACTIVATOR_PK);
  assert.is(toHex(ctx.get(["genesis_key"])!).slice(0, 2), "00");
  assert.is(toHex(ctx.get(["genesis_key"])!), toHex(genesisContext(SANDBOX).get(["genesis_key"])!));
  const e = throwsA(() => initGenesisContext(ctx), TezosError);
  assert.equal(e.toJson(), [{ kind: "temporary", id: "failure", msg: "Internal error: previously initialized context." }]);
  const text = emptyContext(new MemoryStore()).set(["sandbox_parameter"], new TextEncoder().encode(`{"genesis_pubkey":"${ACTIVATOR_PK}"}`));
  const e2 = throwsA(() => initGenesisContext(text), TezosError);
  assert.equal(e2.toJson(), [{ kind: "temporary", id: "failure", msg: "Internal error: failed to parse the sandbox parameter." }]);
  // No sandbox parameter: only the version.
  const plain = initGenesisContext(emptyContext(new MemoryStore()));
  assert.is(plain.get(["genesis_key"]), undefined);
});

test("activate_testchain stores the parameters and a forking test chain, and keeps the protocol", async () => {
  const testchainShell: ShellHeader = { ...shell, timestamp: 1_600_000_000 };
  const signed = await forgeActivation({
    chainId: CHAIN, shellHeader: testchainShell, protocol: HANGZHOU, fitness: 2, parameters: hangzhouParameters,
    secretKey: ACTIVATOR_SK, testChainValidity: 86_400n,
  });
  assert.is(signed.command.command, "activate_testchain");
  const result = await beginApplication({ chainId: CHAIN, context: genesisContext(SANDBOX), shellHeader: testchainShell, protocolData: signed.protocolData });
  assert.is(result.message, "activate testchain PtHangz2aRng");
  assert.is(toHex(result.context.get(["protocol"])!), toHex(b58decode(B58.protocolHash, GENESIS_PROTOCOL)));
  const status = result.context.get(["test_chain"])!;
  assert.is(toHex(status), "01" + toHex(b58decode(B58.protocolHash, HANGZHOU)) + (1_600_000_000n + 86_400n).toString(16).padStart(16, "0"));
  assert.equal(status, testChainForking(HANGZHOU, 1_600_086_400n));
  assert.equal(result.fitness.map(toHex), ["00", "0000000000000002"]);
});

test("construction without a command keeps the predecessor; with one it applies it at the predecessor's level", () => {
  const ctx = genesisContext(SANDBOX);
  const empty = beginConstruction({ context: ctx, predecessorLevel: 0, predecessorFitness: [], timestamp: 5 });
  assert.is(empty.context, ctx);
  assert.equal(empty.fitness, []);
  assert.is(empty.message, undefined);
  const command: Command = activationCommand({ protocol: HANGZHOU, fitness: 1, parameters: hangzhouParameters });
  const built = beginConstruction({ context: ctx, predecessorLevel: 0, predecessorFitness: [], timestamp: 5, command });
  assert.is(built.lastAllowedForkLevel, 0);
  assert.is(built.message, activationMessage(command));
  assert.is(toHex(built.context.get(["protocol"])!), toHex(b58decode(B58.protocolHash, HANGZHOU)));
});

test("the largest genesis block data is 115 bytes, as Octez's max_block_length computes it", () => {
  // tag 1 + hash 32 + fitness (4 + 4 + 1) + 1 parameter byte + validity 8, then the signature 64.
  assert.is(MAX_BLOCK_LENGTH, 1 + 32 + 9 + 1 + 8 + 64);
});

test.run();
