/**
 * The genesis protocol's block header data (Octez `src/proto_genesis/lib_protocol/data.ml`,
 * `Data.Command`): the one command a genesis block can carry, and its signed form.
 *
 * Binary: a tag byte, 0x00 `activate` or 0x01 `activate_testchain`; the protocol hash (32 bytes);
 * the fitness (4-byte total length, then each element with its 4-byte length); the protocol
 * parameters with no length of their own (they run to the end of the command, which in a block
 * header is the final 64-byte signature); `activate_testchain` ends with an int64, the life span
 * of the test chain in seconds. The protocol parameters are themselves data-encoding's binary
 * JSON: a 4-byte length then BSON (see `lib/encoding/bson.ts`).
 *
 * JSON, as Octez prints a level-1 block header:
 * `{"content":{"command":"activate","hash":"P…","fitness":["00","…"],"protocol_parameters":"<hex>"},"signature":"sig…"}`.
 * Values use the JSON field names: `hash` is OCaml's `protocol`, `validity_time` its `delay`.
 * @module
 */
import { variableBytes } from "../../encoding/bytes.ts";
import { constant } from "../../encoding/conv.ts";
import type { Codec } from "../../encoding/core.ts";
import { fitness } from "../../encoding/fitness.ts";
import { protocolHash } from "../../encoding/hashes.ts";
import { int64 } from "../../encoding/integers.ts";
import { signature } from "../../encoding/keys.ts";
import { mergeObjs, obj, req } from "../../encoding/object.ts";
import { tagged, union } from "../../encoding/union.ts";
import { shellHeader, type ShellHeader } from "../../encoding/block-header.ts";

/** The genesis protocol's hash, shared by the sandbox, test networks and mainnet's genesis of v12. */
export const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";

/** `Activate`: switch the chain to `hash` with the given fitness and parameters. */
export interface ActivateCommand {
  /** The case name. */
  command: "activate";
  /** The protocol to activate (`P…`; OCaml field `protocol`). */
  hash: string;
  /** The fitness of the activation block (the client gives `["00", int64be(n)]`). */
  fitness: Uint8Array[];
  /** The new protocol's parameters: data-encoding's binary JSON (4-byte length ‖ BSON). */
  protocol_parameters: Uint8Array;
}

/** `Activate_testchain`: fork a test chain running `hash`, living `validity_time` seconds. */
export interface ActivateTestchainCommand {
  /** The case name. */
  command: "activate_testchain";
  /** The test chain's protocol (`P…`). */
  hash: string;
  /** The fitness of the block. */
  fitness: Uint8Array[];
  /** The test protocol's parameters (binary JSON, as for `activate`). */
  protocol_parameters: Uint8Array;
  /** Seconds from the block's timestamp to the test chain's expiration (OCaml field `delay`). */
  validity_time: bigint;
}

/** A genesis command (`Data.Command.t`). */
export type Command = ActivateCommand | ActivateTestchainCommand;

/** The genesis block header data: a command and the activator's signature over it. */
export interface ProtocolData {
  /** The command. */
  content: Command;
  /** Signature of the shell header ‖ command bytes (`sig…` when read from binary). */
  signature: string;
}

/** A full genesis-protocol block header: the shell header and the protocol data. */
export interface BlockHeader extends ShellHeader, ProtocolData {}

/** Command codec (`Data.Command.encoding`): tag 0 `activate`, tag 1 `activate_testchain`. */
export const command: Codec<Command> = union<Command>([
  tagged(
    0,
    "Activate",
    obj(
      req("command", constant("activate")),
      req("hash", protocolHash),
      req("fitness", fitness),
      req("protocol_parameters", variableBytes),
    ),
    (v) => (v.command === "activate" ? v : undefined),
    (p) => p,
  ),
  tagged(
    1,
    "Activate_testchain",
    obj(
      req("command", constant("activate_testchain")),
      req("hash", protocolHash),
      req("fitness", fitness),
      req("protocol_parameters", variableBytes),
      req("validity_time", int64),
    ),
    (v) => (v.command === "activate_testchain" ? v : undefined),
    (p) => p,
  ),
]);

/** Signed protocol data codec (`Data.Command.signed_encoding`): `content` then `signature`. */
export const protocolData: Codec<ProtocolData> = obj(req("content", command), req("signature", signature));

/** Full header codec of a genesis-protocol block: shell header ‖ command ‖ signature. */
export const blockHeader: Codec<BlockHeader> = mergeObjs(shellHeader, protocolData);
