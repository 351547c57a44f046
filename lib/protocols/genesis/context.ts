/**
 * What the genesis protocol keeps in the context, and how it changes it (Octez
 * `src/proto_genesis/lib_protocol/{data,main}.ml`, `src/lib_context/context.ml`,
 * `src/lib_shell/patch_context.ml`). Everything here is pure: functions read through `get` and
 * write through `set`, which returns a new context, so any persistent context fits — the node's
 * Merkle context (`lib/store/context`) does.
 *
 * Keys:
 * - `sandbox_parameter`: the node's `--sandbox` JSON (`{"genesis_pubkey": "edpk…"}`), written
 *   by the shell before the genesis commit, in data-encoding's binary JSON (4-byte length ‖ BSON);
 * - `version`: `"genesis"`, written by the genesis protocol's `init` (it refuses a context that
 *   already has one, and every block it applies requires it);
 * - `genesis_key`: the binary public key (curve tag ‖ key) that must sign the activation, taken
 *   from the sandbox parameter; absent, the protocol uses {@link DEFAULT_GENESIS_KEY};
 * - `protocol_parameters`: the activated protocol's parameters, as the command carries them;
 * - `protocol`: the 32 bytes of the protocol that validates the next block;
 * - `test_chain`: the test chain status (`test_chain_status` binary: 0x00 not running, 0x01
 *   forking ‖ protocol ‖ int64 expiration).
 * @module
 */
import { B58, b58decode } from "../../encoding/base58.ts";
import { bsonJson } from "../../encoding/bson.ts";
import { decodeBinary, encodeBinary, type Json } from "../../encoding/codec.ts";
import { parsePublicKey, publicKeyFromBinary, publicKeyToBinary, type PublicKey } from "../../crypto/keys.ts";
import { failure, TezosError } from "../../errors/mod.ts";
import type { Command } from "./command.ts";

/** A context path: segments from the root (as `lib/store/context`'s `ContextPath`). */
export type ContextPath = readonly string[];

/** The part of a persistent context the genesis protocol uses; `set` returns the new context. */
export interface GenesisContext<C> {
  /** The bytes at `path`, or undefined. */
  get(path: ContextPath): Uint8Array | undefined;
  /** A context with `value` at `path`. */
  set(path: ContextPath, value: Uint8Array): C;
}

/** One write to the context. */
export interface ContextWrite {
  /** Where. */
  readonly path: ContextPath;
  /** What. */
  readonly value: Uint8Array;
}

/** `["version"]`: holds `"genesis"` once the genesis protocol initialised the context. */
export const VERSION_KEY: ContextPath = Object.freeze(["version"]);
/** `["genesis_key"]`: the binary public key that must sign the activation block. */
export const GENESIS_KEY_KEY: ContextPath = Object.freeze(["genesis_key"]);
/** `["sandbox_parameter"]`: the node's sandbox JSON, in binary JSON (length ‖ BSON). */
export const SANDBOX_PARAMETER_KEY: ContextPath = Object.freeze(["sandbox_parameter"]);
/** `["protocol_parameters"]`: the parameters of the activated protocol (binary JSON). */
export const PROTOCOL_PARAMETERS_KEY: ContextPath = Object.freeze(["protocol_parameters"]);
/** `["protocol"]`: the protocol of the next block (32 raw bytes). */
export const PROTOCOL_KEY: ContextPath = Object.freeze(["protocol"]);
/** `["test_chain"]`: the test chain status (binary `test_chain_status`). */
export const TEST_CHAIN_KEY: ContextPath = Object.freeze(["test_chain"]);

/** The value of {@link VERSION_KEY}. */
export const GENESIS_VERSION = "genesis";

/** The genesis key when the context holds none (Octez `Data.Pubkey.default`). */
export const DEFAULT_GENESIS_KEY = "edpkvVCdQtDJHPnkmfRZuuHWKzFetH9N9nGP8F7zkwM2BJpjbvAU1N";

/** `test_chain_status` `Not_running`, as the shell writes it in the genesis context. */
export const TEST_CHAIN_NOT_RUNNING: Uint8Array = Uint8Array.of(0x00);

const binaryJson = bsonJson();
const utf8 = new TextEncoder();

function internalError(msg: string): TezosError {
  return failure.error({ msg });
}

/** Applies writes in order. */
export function applyWrites<C extends GenesisContext<C>>(context: C, writes: readonly ContextWrite[]): C {
  let ctx = context;
  for (const w of writes) ctx = ctx.set(w.path, w.value);
  return ctx;
}

/**
 * The bytes the shell stores under `sandbox_parameter` for a sandbox JSON value: data-encoding's
 * binary JSON (4-byte length ‖ BSON).
 * @example sandboxParameterBytes({ genesis_pubkey: "edpkuSLWfVU1Vq7Jg9FucPyKmma6otcMHac9zG4oU1KMHSTBpJuGQ2" })
 */
export function sandboxParameterBytes(json: Json): Uint8Array {
  return encodeBinary(binaryJson, json);
}

/**
 * The genesis key a sandbox JSON sets, as the genesis protocol reads it: an object whose only
 * field is a valid `genesis_pubkey`; anything else sets nothing (undefined), as in Octez.
 */
export function genesisKeyOfSandbox(json: Json): PublicKey | undefined {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return undefined;
  const keys = Object.keys(json);
  const pk = json["genesis_pubkey"];
  if (keys.length !== 1 || typeof pk !== "string") return undefined;
  try {
    return parsePublicKey(pk);
  } catch {
    return undefined;
  }
}

/**
 * The genesis protocol's `init`, run once on the genesis context before its commit: tags the
 * context with the version and, when the sandbox parameter names a key, stores it under
 * `genesis_key`. Throws a TezosError (`failure`) on a context already initialised or a sandbox
 * parameter that is not binary JSON.
 */
export function initGenesisContext<C extends GenesisContext<C>>(context: C): C {
  if (context.get(VERSION_KEY) !== undefined) throw internalError("Internal error: previously initialized context.");
  let ctx = context.set(VERSION_KEY, utf8.encode(GENESIS_VERSION));
  const param = context.get(SANDBOX_PARAMETER_KEY);
  if (param !== undefined) {
    let json: Json;
    try {
      json = decodeBinary(binaryJson, param);
    } catch (e) {
      throw new TezosError(failure.create({ msg: "Internal error: failed to parse the sandbox parameter." }), { cause: e });
    }
    const key = genesisKeyOfSandbox(json);
    if (key !== undefined) ctx = ctx.set(GENESIS_KEY_KEY, publicKeyToBinary(key));
  }
  return ctx;
}

/**
 * The writes that make a genesis context, as Octez's `commit_genesis` with the sandbox patch:
 * the sandbox parameter (when given), the version, the genesis key (when the sandbox names one),
 * the genesis protocol and a test chain that is not running.
 */
export function genesisContextWrites(protocol: string, sandboxParameter?: Json): ContextWrite[] {
  const writes: ContextWrite[] = [];
  if (sandboxParameter !== undefined) writes.push({ path: SANDBOX_PARAMETER_KEY, value: sandboxParameterBytes(sandboxParameter) });
  writes.push({ path: VERSION_KEY, value: utf8.encode(GENESIS_VERSION) });
  const key = sandboxParameter === undefined ? undefined : genesisKeyOfSandbox(sandboxParameter);
  if (key !== undefined) writes.push({ path: GENESIS_KEY_KEY, value: publicKeyToBinary(key) });
  writes.push({ path: PROTOCOL_KEY, value: b58decode(B58.protocolHash, protocol) });
  writes.push({ path: TEST_CHAIN_KEY, value: TEST_CHAIN_NOT_RUNNING });
  return writes;
}

/** The key that must sign the activation: the context's `genesis_key`, else {@link DEFAULT_GENESIS_KEY}. */
export function genesisKey(context: Pick<GenesisContext<unknown>, "get">): PublicKey {
  const b = context.get(GENESIS_KEY_KEY);
  if (b !== undefined) {
    try {
      return publicKeyFromBinary(b);
    } catch {
      // Octez falls back to the default key when the stored one does not decode.
    }
  }
  return parsePublicKey(DEFAULT_GENESIS_KEY);
}

/**
 * Octez's `check_inited`: the context must carry the version `"genesis"`. Throws a TezosError
 * (`failure`) otherwise.
 */
export function checkInited(context: Pick<GenesisContext<unknown>, "get">): void {
  const v = context.get(VERSION_KEY);
  if (v === undefined) throw internalError("Internal error: uninitialized context.");
  if (new TextDecoder().decode(v) !== GENESIS_VERSION) throw internalError("Internal error: incompatible protocol version");
}

/** `test_chain_status` `Forking {protocol; expiration}` in binary: 0x01 ‖ protocol (32) ‖ int64 expiration. */
export function testChainForking(protocol: string, expiration: bigint): Uint8Array {
  const out = new Uint8Array(41);
  out[0] = 0x01;
  out.set(b58decode(B58.protocolHash, protocol), 1);
  new DataView(out.buffer).setBigInt64(33, expiration);
  return out;
}

/**
 * The context writes of a command applied in a block with `timestamp` (seconds): the parameters
 * under `protocol_parameters`, then for `activate` the new protocol under `protocol`, for
 * `activate_testchain` a forking test chain expiring `validity_time` seconds after the block.
 */
export function activationWrites(command: Command, timestamp: number | bigint): ContextWrite[] {
  const writes: ContextWrite[] = [{ path: PROTOCOL_PARAMETERS_KEY, value: command.protocol_parameters }];
  if (command.command === "activate") {
    writes.push({ path: PROTOCOL_KEY, value: b58decode(B58.protocolHash, command.hash) });
  } else if (command.command === "activate_testchain") {
    const expiration = BigInt(timestamp) + command.validity_time;
    writes.push({ path: TEST_CHAIN_KEY, value: testChainForking(command.hash, expiration) });
  } else {
    throw new TypeError(`Unknown genesis command ${JSON.stringify((command as { command: unknown }).command)}`);
  }
  return writes;
}
