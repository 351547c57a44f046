/**
 * Node-level services: `/version`, `/protocols`, `/config/…` and the `/monitor/…` streams.
 * @module
 */
import { protocolHash } from "../../encoding/hashes.ts";
import type { Block } from "../../shell/chain.ts";
import { chainArg, protocolHashArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { multi, query } from "../query.ts";
import { NotFound, service, streamService } from "../service.ts";
import { chainOf, type ShellView } from "./context.ts";
import { string } from "../../encoding/bytes.ts";
import { list } from "../../encoding/list.ts";
import {
  bootstrappedCodec,
  chainStatusCodec,
  headNoticeCodec,
  historyModeAnswerCodec,
  protocolListCodec,
  protocolOverridesCodec,
  userActivatedUpgradesCodec,
  validBlockNoticeCodec,
  versionCodec,
} from "./shell-encodings.ts";

/** The Octez release whose RPC interface this node serves. */
export const OCTEZ_VERSION = { major: 12, minor: 4, additional_info: "release" } as const;

/** P2P versions announced (Octez v12: distributed DB 2, p2p 1). */
export const NETWORK_VERSION = { distributed_db_version: 2, p2p_version: 1 } as const;

/** Async iterable over `source`, keeping values that pass `keep`, mapped by `map`. */
async function* filterMap<T, U>(source: AsyncIterable<T>, keep: (v: T) => boolean, map: (v: T) => U): AsyncGenerator<U> {
  for await (const v of source) if (keep(v)) yield map(v);
}

function notice(b: Block) {
  return { hash: b.hash, ...b.header };
}

/**
 * `/monitor/bootstrapped` as Octez v12's `monitor_directory.ml`: the current head, then each new
 * head until the node is bootstrapped, then the end. Already bootstrapped (a node alone, with a
 * synchronisation threshold of 0): the current head, then the end. A head that arrives with the
 * node already bootstrapped ends the stream rather than being sent.
 */
async function* bootstrappedStream(shell: ShellView, signal: AbortSignal) {
  const { chain, sync } = shell;
  const heads = chain.heads.subscribe([], signal); // heads from the request on, as Octez's watcher
  try {
    yield { block: chain.head.hash, timestamp: chain.head.header.timestamp };
    if (sync === undefined) return;
    const done = new AbortController();
    const abandon = () => done.abort();
    signal.addEventListener("abort", abandon, { once: true });
    const bootstrapped = sync.bootstrapped(done.signal).then(
      () => "bootstrapped" as const,
      () => "gone" as const,
    );
    try {
      while (!sync.isBootstrapped()) {
        const next = await Promise.race([heads.next(), bootstrapped]);
        if (typeof next === "string" || next.done === true || sync.isBootstrapped()) return;
        yield { block: next.value.hash, timestamp: next.value.header.timestamp };
      }
    } finally {
      signal.removeEventListener("abort", abandon);
      done.abort(); // drops the wait on the flag
    }
  } finally {
    await heads.return?.();
  }
}

/** Registers the node-level services. */
export function nodeServices(shell: ShellView): Directory<void> {
  const { chain, protocols } = shell;
  return new Directory().register(
    service({
      method: "GET",
      path: ["version"],
      description: "Get information on the node version",
      output: versionCodec,
      handler: () => ({
        version: OCTEZ_VERSION,
        network_version: { chain_name: shell.genesis.chainName, ...NETWORK_VERSION },
        commit_info: shell.commit === undefined ? undefined : { commit_hash: shell.commit.hash, commit_date: shell.commit.date },
      }),
    }),
    service({
      method: "GET",
      path: ["protocols"],
      output: protocolListCodec,
      handler: () => protocols.list(),
    }),
    service({
      method: "GET",
      path: ["config", "network", "user_activated_upgrades"],
      description: "List of protocols to switch to at given levels",
      output: userActivatedUpgradesCodec,
      handler: () => [],
    }),
    service({
      method: "GET",
      path: ["config", "network", "user_activated_protocol_overrides"],
      description: "List of protocols which replace other protocols",
      output: protocolOverridesCodec,
      handler: () => [],
    }),
    service({
      method: "GET",
      path: ["config", "history_mode"],
      description: "Returns the history mode of the node's underlying storage.",
      output: historyModeAnswerCodec,
      handler: () => ({ history_mode: chain.historyMode }),
    }),
    streamService({
      method: "GET",
      path: ["monitor", "bootstrapped"],
      description:
        "Wait for the node to have synchronized its chain with a few peers (configured by the node's administrator), streaming head updates that happen during the bootstrapping process, and closing the stream at the end. If the node was already bootstrapped, returns the current head immediately.",
      output: bootstrappedCodec,
      handler: ({ signal }) => bootstrappedStream(shell, signal),
    }),
    streamService({
      method: "GET",
      path: ["monitor", "heads", chainArg],
      description: "Monitor all blocks that are successfully validated by the node and selected as the new head of the given chain.",
      query: query({ next_protocol: multi(protocolHashArg) }),
      output: headNoticeCodec,
      handler: ({ params: [c], query: q, signal }) => {
        const ch = chainOf(shell, c);
        const wanted = q.next_protocol;
        const keep = (b: Block) => wanted.length === 0 || wanted.includes(b.info.next_protocol);
        return filterMap(ch.heads.subscribe([ch.head], signal), keep, notice);
      },
    }),
    streamService({
      method: "GET",
      path: ["monitor", "valid_blocks"],
      description: "Monitor all blocks that are successfully validated by the node, disregarding whether they were selected as the new head or not.",
      query: query({ protocol: multi(protocolHashArg), next_protocol: multi(protocolHashArg), chain: multi(chainArg) }),
      output: validBlockNoticeCodec,
      handler: ({ query: q, signal }) => {
        const chains = q.chain.map((c) => {
          try {
            return chainOf(shell, c);
          } catch (e) {
            if (e instanceof NotFound) return undefined;
            throw e;
          }
        });
        const keep = (b: Block) =>
          (q.chain.length === 0 || chains.includes(chain)) &&
          (q.protocol.length === 0 || q.protocol.includes(b.info.protocol)) &&
          (q.next_protocol.length === 0 || q.next_protocol.includes(b.info.next_protocol));
        return filterMap(chain.validBlocks.subscribe([], signal), keep, (b) => ({ chain_id: chain.chainId, ...notice(b) }));
      },
    }),
    service({
      method: "GET",
      path: ["monitor", "commit_hash"],
      description: "DEPRECATED: use `version` instead.",
      output: string,
      handler: () => shell.commit?.hash ?? "unknown",
    }),
    streamService({
      method: "GET",
      path: ["monitor", "active_chains"],
      description: "Monitor every chain creation and destruction. Currently active chains will be given as first elements",
      output: list(chainStatusCodec),
      // The main chain, then nothing: this node runs no test chain, so none starts or stops.
      handler: async function* ({ signal }) {
        yield [{ chain_id: chain.chainId }];
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      },
    }),
    streamService({
      method: "GET",
      path: ["monitor", "protocols"],
      description: "Monitor all economic protocols that are retrieved and successfully loaded and compiled by the node.",
      output: protocolHash,
      handler: ({ signal }) => protocols.added.subscribe([], signal),
    }),
  );
}
