/**
 * Protocol sources: `POST /injection/protocol`, `GET /protocols/<hash>`,
 * `GET /protocols/<hash>/environment` and `GET /fetch_protocol/<hash>` (Octez
 * `injection_directory.ml`, `protocol_directory.ml`).
 *
 * A protocol's hash is the BLAKE2b-256 digest of its record's binary form (Octez `Protocol.hash`;
 * the rule gives `PtHangz2…` for Hangzhou's own sources). An injected protocol is stored, listed by
 * `GET /protocols` and announced on `/monitor/protocols`, but this node cannot compile OCaml, so
 * it never runs one: a block that activates it is refused with `validator.unavailable_protocol`.
 *
 * Decisions where Octez cannot be followed:
 * - Octez compiles an injected protocol before storing it and refuses one that does not compile;
 *   this node stores every well-formed record (it compiles nothing).
 * - Octez serves the sources of its built-in protocols; so does this node (its data files of
 *   Octez v12.4's sources, `lib/protocols/sources/`), though it runs its own implementations.
 * - An unknown protocol: Octez answers a `failure` "Not_found" (500); this node answers 404,
 *   the RPC layer's "no such resource".
 * - `GET /fetch_protocol/<hash>` of a known protocol answers `{}` as Octez; of an unknown one,
 *   Octez asks its peers and times out after `protocol_request_timeout`; this node has no peer to
 *   ask and answers `requester.Protocol_hash.fetch_timeout` at once.
 * @module
 */
import { blake2b256 } from "../../crypto/blake2b.ts";
import { B58, b58encode } from "../../encoding/base58.ts";
import { decodeBinary, encodeBinary } from "../../encoding/codec.ts";
import { unit } from "../../encoding/conv.ts";
import { protocolHash } from "../../encoding/hashes.ts";
import { obj, req } from "../../encoding/object.ts";
import { envVersion, protocolRecord, type ProtocolRecord } from "../../encoding/protocol.ts";
import { defaultRegistry, defineError, failure, type ErrorDefinition } from "../../errors/mod.ts";
import { protocolHashArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { flag, query } from "../query.ts";
import { service } from "../service.ts";
import type { ShellView } from "./context.ts";

/**
 * The largest protocol record this node takes, in bytes of its binary form: Octez's
 * `protocol_max_size` (`distributed_db_message.ml`, 2 MiB), the bound of a protocol a peer sends.
 * Hangzhou's own sources take 1 962 898.
 */
export const PROTOCOL_MAX_SIZE = 2 * 1024 * 1024;

/** Octez's `Protocol.hash`: the `P…` hash of a protocol record (BLAKE2b-256 of its binary form). */
export function protocolRecordHash(record: ProtocolRecord): string {
  return b58encode(B58.protocolHash, blake2b256(encodeBinary(protocolRecord, record)));
}

/** Octez's `Protocol_hash.to_short_b58check`: the first 12 characters. */
function short(hash: string): string {
  return hash.slice(0, 12);
}

function registered<F>(id: string, make: () => ErrorDefinition<F>): ErrorDefinition<F> {
  return (defaultRegistry.get(id) as ErrorDefinition<F> | undefined) ?? make();
}

/** `requester.Protocol_hash.fetch_timeout` {key}: the protocol could not be fetched from peers. */
export const protocolFetchTimeout: ErrorDefinition<{ key: string }> = registered("requester.Protocol_hash.fetch_timeout", () =>
  defineError({
    id: "requester.Protocol_hash.fetch_timeout",
    kind: "permanent",
    title: "Timed out fetch of a Protocol_hash",
    description: "The fetch of a Protocol_hash has timed out",
    fields: obj(req("key", protocolHash)),
  }),
);

/** What the protocol services read and change. */
export type ProtocolsView = Pick<ShellView, "protocols" | "blockRpc">;

/** The record (sources) of `hash`, if the node knows it: injected, or embedded. */
async function recordOf(shell: ProtocolsView, hash: string): Promise<ProtocolRecord | undefined> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await shell.protocols.sources(hash);
  } catch (e) {
    throw failure.error({ msg: `Cannot read the sources of protocol ${hash}: ${e instanceof Error ? e.message : String(e)}` });
  }
  return bytes === undefined ? undefined : decodeBinary(protocolRecord, bytes);
}

/**
 * Stores an injected protocol and announces it (Octez `inject_protocol`): resolves to its hash,
 * or fails with Octez's "Previously registered protocol (<short hash>)" when it is already known
 * (embedded or injected), and with "Oversized protocol" beyond {@link PROTOCOL_MAX_SIZE}. The
 * record's encoding and its environment version (0 to 4) were checked when the body was read.
 */
export async function injectProtocol(shell: ProtocolsView, record: ProtocolRecord): Promise<string> {
  const bytes = encodeBinary(protocolRecord, record);
  if (bytes.length > PROTOCOL_MAX_SIZE) {
    throw failure.error({ msg: `Oversized protocol: ${bytes.length} bytes, at most ${PROTOCOL_MAX_SIZE}` });
  }
  const hash = b58encode(B58.protocolHash, blake2b256(bytes));
  if (!(await shell.protocols.add(hash, bytes))) throw failure.error({ msg: `Previously registered protocol (${short(hash)})` });
  return hash;
}

/** Registers the protocol services. */
export function protocolServices(shell: ProtocolsView): Directory<void> {
  return new Directory().register(
    service({
      method: "POST",
      path: ["injection", "protocol"],
      description:
        "Inject a protocol in node. Returns the ID of the protocol. If ?async is true, the function returns immediately. Otherwise, the protocol will be validated before the result is returned.",
      query: query({ async: flag() }),
      input: protocolRecord,
      output: protocolHash,
      handler: async ({ query: q, body }) => {
        const done = injectProtocol(shell, body);
        if (!q.async) return await done;
        done.catch(() => {}); // as Octez: an async injection reports nothing
        return protocolRecordHash(body);
      },
    }),
    service({
      method: "GET",
      path: ["protocols", protocolHashArg],
      output: protocolRecord,
      optional: true,
      handler: ({ params: [hash] }) => recordOf(shell, hash),
    }),
    service({
      method: "GET",
      path: ["protocols", protocolHashArg, "environment"],
      output: envVersion,
      optional: true,
      handler: ({ params: [hash] }) => shell.blockRpc(hash)?.environmentVersion ?? storedEnvironment(shell, hash),
    }),
    service({
      method: "GET",
      path: ["fetch_protocol", protocolHashArg],
      description: "Fetch a protocol from the network.",
      output: unit,
      handler: ({ params: [hash] }) => {
        if (shell.protocols.isEmbedded(hash) || shell.protocols.record(hash) !== undefined) return undefined;
        throw protocolFetchTimeout.error({ key: hash });
      },
    }),
  );
}

/** The environment version of an injected protocol, from its stored record. */
function storedEnvironment(shell: ProtocolsView, hash: string): number | undefined {
  const bytes = shell.protocols.record(hash);
  return bytes === undefined ? undefined : decodeBinary(protocolRecord, bytes).expected_env_version;
}
