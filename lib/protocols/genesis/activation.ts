/**
 * The activation block: building it as `tezos-client activate protocol … with fitness … and key
 * … and parameters …` does (`src/proto_genesis/lib_client/client_proto_main.ml`), and applying
 * it as the genesis protocol does (`src/proto_genesis/lib_protocol/main.ml`).
 *
 * What is signed (`Data.Command.forge`): the shell header's bytes followed by the command's
 * bytes (no signature), under the block watermark 0x01 ‖ chain id; the signature is appended to
 * the command to make the protocol data. The key is the context's `genesis_key`
 * (see `./context.ts`).
 *
 * Applying (`begin_application`): the context must carry the version `"genesis"`; the
 * signature must check; then `activate` stores the parameters under `protocol_parameters` and
 * switches `protocol` to the new one, `activate_testchain` stores the parameters and marks a
 * test chain as forking. The block's fitness is the command's, `max_operations_ttl` is 0, the
 * last allowed fork level is the block's level, and the commit message is
 * `activate <first 12 characters of the protocol hash>` (`activate testchain …` for a test
 * chain). The genesis protocol has no operations and no validation passes; `finalize_block`
 * changes nothing and its metadata is `unit` (`{}` in JSON, no bytes in binary). The new
 * protocol's own initialisation then runs on that context, in the same block.
 *
 * @example
 * ```ts
 * const { protocolData } = await forgeActivation({
 *   chainId: "NetXdQprcVkpaWU", shellHeader, protocol: "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx",
 *   fitness: 1, parameters, secretKey: "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6" });
 * const { content } = await checkActivation({ chainId: "NetXdQprcVkpaWU", shellHeader, protocolData,
 *   genesisKey: "edpkuSLWfVU1Vq7Jg9FucPyKmma6otcMHac9zG4oU1KMHSTBpJuGQ2" });
 * ```
 * @module
 */
import { B58, b58decode, b58encode } from "../../encoding/base58.ts";
import { shellHeader as shellHeaderCodec, type ShellHeader } from "../../encoding/block-header.ts";
import { bsonJson } from "../../encoding/bson.ts";
import { DecodeError, decodeBinary, encodeBinary, type Json } from "../../encoding/codec.ts";
import { blockWatermark } from "../../crypto/watermark.ts";
import { formatSignature, parsePublicKey, parseSecretKey, parseSignature, type PublicKey, type SecretKey } from "../../crypto/keys.ts";
import { sign, verify } from "../../crypto/sign.ts";
import { TezosError } from "../../errors/mod.ts";
import { command as commandCodec, protocolData as protocolDataCodec, type Command, type ProtocolData } from "./command.ts";
import { activationWrites, applyWrites, checkInited, genesisKey, type GenesisContext } from "./context.ts";
import { invalidSignature, parsingError } from "./errors.ts";

/** Chain id: `Net…` or its 4 raw bytes. */
export type ChainIdArg = string | Uint8Array;

function chainIdBytes(chainId: ChainIdArg): Uint8Array {
  if (typeof chainId === "string") return b58decode(B58.chainId, chainId);
  if (!(chainId instanceof Uint8Array)) throw new TypeError("chainId must be a Net… string or a Uint8Array");
  if (chainId.length !== 4) throw new RangeError(`chainId must be 4 bytes, got ${chainId.length}`);
  return chainId;
}

function secretKeyArg(key: SecretKey | string): SecretKey {
  return typeof key === "string" ? parseSecretKey(key) : key;
}

function publicKeyArg(key: PublicKey | string): PublicKey {
  return typeof key === "string" ? parsePublicKey(key) : key;
}

function shellArg(shell: ShellHeader | Uint8Array): ShellHeader {
  if (!(shell instanceof Uint8Array)) return shell;
  try {
    return decodeBinary(shellHeaderCodec, shell);
  } catch (e) {
    if (e instanceof DecodeError) throw new TezosError(parsingError.create(), { cause: e });
    throw e;
  }
}

/**
 * The fitness `tezos-client` gives the activation block for `with fitness n`:
 * `["00", int64be(n)]` (version byte 0 of the Emmy fitness, then the score).
 * @example activationFitness(1) // [00, 0000000000000001]
 */
export function activationFitness(n: number | bigint): Uint8Array[] {
  const v = typeof n === "bigint" ? n : Number.isSafeInteger(n) ? BigInt(n) : undefined;
  if (v === undefined) throw new TypeError(`fitness must be an integer, got ${String(n)}`);
  if (v < -(1n << 63n) || v >= 1n << 63n) throw new RangeError(`fitness ${v} does not fit an int64`);
  const score = new Uint8Array(8);
  new DataView(score.buffer).setBigInt64(0, v);
  return [Uint8Array.of(0x00), score];
}

/** The binary protocol parameters of a parameters JSON value: 4-byte length ‖ BSON (data-encoding `json`). */
export function protocolParametersBytes(parameters: Json): Uint8Array {
  return encodeBinary(bsonJson(), parameters);
}

/** What an activation command is made of. */
export interface ActivationSpec {
  /** The protocol to activate (`P…`). */
  readonly protocol: string;
  /** The block's fitness: an integer as the client takes it, or the fitness itself. Default 1. */
  readonly fitness?: number | bigint | readonly Uint8Array[];
  /** The protocol parameters as JSON (encoded to BSON), or already encoded bytes. */
  readonly parameters: Json | Uint8Array;
  /** When set, an `activate_testchain` command with this life span in seconds. */
  readonly testChainValidity?: bigint;
}

/** The command of an activation: `activate`, or `activate_testchain` when a validity is given. */
export function activationCommand(spec: ActivationSpec): Command {
  const f = spec.fitness ?? 1;
  const fitness = typeof f === "number" || typeof f === "bigint" ? activationFitness(f) : [...f];
  const protocol_parameters = spec.parameters instanceof Uint8Array ? spec.parameters.slice() : protocolParametersBytes(spec.parameters);
  b58decode(B58.protocolHash, spec.protocol);
  if (spec.testChainValidity === undefined) return { command: "activate", hash: spec.protocol, fitness, protocol_parameters };
  if (typeof spec.testChainValidity !== "bigint") throw new TypeError("testChainValidity must be a bigint (seconds)");
  return { command: "activate_testchain", hash: spec.protocol, fitness, protocol_parameters, validity_time: spec.testChainValidity };
}

/** `Data.Command.forge`: the bytes the activator signs, shell header ‖ command. */
export function forgeCommand(shellHeader: ShellHeader, command: Command): Uint8Array {
  return concat(encodeBinary(shellHeaderCodec, shellHeader), encodeBinary(commandCodec, command));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Options of {@link forgeActivation}. */
export interface ForgeActivationOptions extends ActivationSpec {
  /** The chain (`Net…` or 4 bytes). */
  readonly chainId: ChainIdArg;
  /** The shell header of the level-1 block (from preapply: its fitness is the command's). */
  readonly shellHeader: ShellHeader;
  /** The activator's key (`edsk…` or a parsed key); the context's genesis key must be its public key. */
  readonly secretKey: SecretKey | string;
}

/** A signed activation. */
export interface SignedActivation {
  /** The command. */
  readonly command: Command;
  /** The signature, generic `sig…` form (as Octez prints it). */
  readonly signature: string;
  /** The block's protocol data: command ‖ signature. */
  readonly protocolData: Uint8Array;
  /** The whole block header: shell header ‖ protocol data (what `/injection/block` takes). */
  readonly header: Uint8Array;
}

/**
 * Builds and signs the activation block's protocol data, as `tezos-client activate protocol`:
 * the command, signed over shell header ‖ command under 0x01 ‖ chain id.
 */
export async function forgeActivation(options: ForgeActivationOptions): Promise<SignedActivation> {
  const chain = chainIdBytes(options.chainId);
  const key = secretKeyArg(options.secretKey);
  const command = activationCommand(options);
  const shell = encodeBinary(shellHeaderCodec, options.shellHeader);
  const cmd = encodeBinary(commandCodec, command);
  const sig = await sign(key, concat(shell, cmd), blockWatermark(chain));
  const protocolData = concat(cmd, sig);
  return { command, signature: formatSignature(sig), protocolData, header: concat(shell, protocolData) };
}

/** Options of {@link checkActivation}. */
export interface CheckActivationOptions {
  /** The chain (`Net…` or 4 bytes). */
  readonly chainId: ChainIdArg;
  /** The block's shell header, decoded or as bytes. */
  readonly shellHeader: ShellHeader | Uint8Array;
  /** The block's protocol data bytes (command ‖ signature). */
  readonly protocolData: Uint8Array;
  /** The key that must have signed: the context's genesis key (see `genesisKey` in `./context.ts`). */
  readonly genesisKey: PublicKey | string;
}

/** Decodes genesis protocol data bytes; a TezosError `proto.genesis.parsing_error` if they are not a signed command. */
export function parseProtocolData(bytes: Uint8Array): ProtocolData {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("protocolData must be a Uint8Array");
  try {
    return decodeBinary(protocolDataCodec, bytes);
  } catch (e) {
    if (e instanceof DecodeError) throw new TezosError(parsingError.create(), { cause: e });
    throw e;
  }
}

/**
 * Checks an activation block's protocol data: it must decode (else `proto.genesis.parsing_error`)
 * and be signed by `genesisKey` over shell header ‖ command under 0x01 ‖ chain id (else
 * `proto.genesis.invalid_signature`). Resolves to the decoded protocol data.
 */
export async function checkActivation(options: CheckActivationOptions): Promise<ProtocolData> {
  const chain = chainIdBytes(options.chainId);
  const key = publicKeyArg(options.genesisKey);
  const data = parseProtocolData(options.protocolData);
  const shell = shellArg(options.shellHeader);
  const ok = await verify(key, parseSignature(data.signature), forgeCommand(shell, data.content), blockWatermark(chain));
  if (!ok) throw invalidSignature.error();
  return data;
}

/** What applying a genesis block gives (Octez `Updater.validation_result`). */
export interface GenesisValidationResult<C> {
  /** The context after the block. */
  readonly context: C;
  /** The block's fitness (the command's). */
  readonly fitness: Uint8Array[];
  /** The commit message (`activate PtHangz2aRng`), absent for an empty construction. */
  readonly message: string | undefined;
  /** Always 0 for genesis blocks. */
  readonly maxOperationsTtl: number;
  /** The level below which no fork is allowed. */
  readonly lastAllowedForkLevel: number;
}

/** `activate <short hash>` / `activate testchain <short hash>`: the first 12 characters of the hash. */
export function activationMessage(command: Command): string {
  const short = command.hash.slice(0, 12);
  return command.command === "activate" ? `activate ${short}` : `activate testchain ${short}`;
}

/**
 * Octez's `prepare_application`: the context writes of `command`, its fitness and message.
 * `level` is the block's level (the predecessor's when constructing), `timestamp` in seconds.
 */
export function prepareApplication<C extends GenesisContext<C>>(
  context: C,
  command: Command,
  level: number,
  timestamp: number | bigint,
): GenesisValidationResult<C> {
  return {
    context: applyWrites(context, activationWrites(command, timestamp)),
    fitness: command.fitness.map((b) => b.slice()),
    message: activationMessage(command),
    maxOperationsTtl: 0,
    lastAllowedForkLevel: level,
  };
}

/** Arguments of {@link beginApplication}. */
export interface BeginApplicationOptions<C> {
  /** The chain (`Net…` or 4 bytes). */
  readonly chainId: ChainIdArg;
  /** The predecessor's context (the genesis context). */
  readonly context: C;
  /** The block's shell header. */
  readonly shellHeader: ShellHeader;
  /** The block's protocol data bytes. */
  readonly protocolData: Uint8Array;
}

/**
 * Applies a genesis-protocol block (Octez `begin_application`; `finalize_block` adds nothing):
 * checks the context's version and the signature with the context's genesis key, then applies
 * the command. Throws a TezosError (`failure`, `proto.genesis.parsing_error`,
 * `proto.genesis.invalid_signature`).
 */
export async function beginApplication<C extends GenesisContext<C>>(
  options: BeginApplicationOptions<C>,
): Promise<GenesisValidationResult<C> & { readonly protocolData: ProtocolData }> {
  checkInited(options.context);
  const data = await checkActivation({
    chainId: options.chainId,
    shellHeader: options.shellHeader,
    protocolData: options.protocolData,
    genesisKey: genesisKey(options.context),
  });
  const result = prepareApplication(options.context, data.content, options.shellHeader.level, options.shellHeader.timestamp);
  return { ...result, protocolData: data };
}

/** Arguments of {@link beginConstruction}. */
export interface BeginConstructionOptions<C> {
  /** The predecessor's context. */
  readonly context: C;
  /** The predecessor's level. */
  readonly predecessorLevel: number;
  /** The predecessor's fitness. */
  readonly predecessorFitness: readonly Uint8Array[];
  /** The timestamp of the block being built (seconds). */
  readonly timestamp: number | bigint;
  /** The command of the block being built (preapply); absent for an empty construction. */
  readonly command?: Command;
}

/**
 * Octez `begin_construction` (used by `helpers/preapply/block`): without a command, the
 * predecessor's context and fitness unchanged; with one, the command applied at the
 * predecessor's level, with no signature check.
 */
export function beginConstruction<C extends GenesisContext<C>>(options: BeginConstructionOptions<C>): GenesisValidationResult<C> {
  if (options.command === undefined) {
    return {
      context: options.context,
      fitness: options.predecessorFitness.map((b) => b.slice()),
      message: undefined,
      maxOperationsTtl: 0,
      lastAllowedForkLevel: 0,
    };
  }
  checkInited(options.context);
  return prepareApplication(options.context, options.command, options.predecessorLevel, options.timestamp);
}

/** Octez `finalize_block`: the state unchanged, and the block metadata, `unit` (`{}` in JSON, no bytes). */
export function finalizeBlock<S>(state: S): { readonly result: S; readonly metadata: undefined } {
  return { result: state, metadata: undefined };
}

/** Octez `max_operation_data_length`: the genesis protocol takes no operations. */
export const MAX_OPERATION_DATA_LENGTH = 0;

/** The genesis protocol's validation passes: none. */
export const VALIDATION_PASSES = 0;

/**
 * Octez `max_block_length`: the binary size of an `activate_testchain` command with a one-byte
 * fitness element and one byte of parameters, plus the 64-byte signature (115).
 */
export const MAX_BLOCK_LENGTH: number =
  encodeBinary(commandCodec, {
    command: "activate_testchain",
    hash: b58encode(B58.protocolHash, new Uint8Array(32)),
    fitness: [new Uint8Array(1)],
    protocol_parameters: new Uint8Array(1),
    validity_time: 0n,
  }).length + 64;
