/**
 * The `/network/*` services (Octez v12 `src/lib_p2p_services/p2p_services.ml`, served as
 * `src/lib_p2p/p2p_directory.ml` serves them) over the node's {@link P2pNetwork}: the node's
 * identity, versions and bandwidth, the event stream, connections, known points and peers with
 * their logs and access rules, and the greylists.
 *
 * Without a P2P layer (the node's default, and always in a browser) each service answers what
 * Octez answers when its P2P layer is disabled (`P2p.faked_network`): `/network/version(s)` the
 * version the node would announce; `/network/log` an open stream that never yields;
 * `GET /network/connections/<peer_id>` and both PATCHes 404; `DELETE /network/connections/<peer_id>`
 * `{}`; `DELETE /network/greylist` the `failure` "The P2P layer is disabled."; every other one the
 * error `node.p2p_pool.disabled`.
 * @module
 */
import type { Codec } from "../../encoding/core.ts";
import { bool } from "../../encoding/integers.ts";
import { list } from "../../encoding/list.ts";
import { tup } from "../../encoding/tuple.ts";
import { failure } from "../../errors/core.ts";
import type { NetworkVersion } from "../../p2p/encoding/connection.ts";
import type { AclChange, P2pNetwork, StateFilter } from "../../p2p/pool/api.ts";
import { p2pLayerDisabled } from "../../p2p/pool/errors.ts";
import { type Arg, makeArg, peerIdArg, pointArg, timespanArg } from "../arg.ts";
import { Directory } from "../directory.ts";
import { flag, multi, query, single } from "../query.ts";
import { type Service, service, streamService } from "../service.ts";
import {
  connectionInfo,
  emptyObject,
  greylistedIps,
  networkVersion,
  p2pEvent,
  peerId,
  peerInfo,
  peerLogItem,
  peerPatch,
  pointId,
  pointInfo,
  pointLogItem,
  pointPatch,
  stat,
} from "./network-codecs.ts";

/** Octez's point state filter (`P2p_point.Filter.rpc_arg`). */
export const pointFilterArg = stateFilterArg(["requested", "accepted", "running", "disconnected"]);

/** Octez's peer state filter (`P2p_peer.Filter.rpc_arg`, named as the point's in Octez). */
export const peerFilterArg = stateFilterArg(["accepted", "running", "disconnected"]);

function stateFilterArg(states: readonly StateFilter[]) {
  return makeArg<StateFilter>({
    name: "p2p.point.state_filter",
    parse(text) {
      if (!(states as readonly string[]).includes(text)) throw new Error(`Invalid state: ${text}`);
      return text as StateFilter;
    },
    print: (s) => s,
  });
}

/** The default of PUT `/network/points/<point>?timeout`, in seconds (Octez's). */
export const DEFAULT_CONNECT_TIMEOUT_S = 10;

/** An iterable that yields nothing and ends when `signal` aborts (the disabled layer's event stream). */
async function* nothingUntil(signal: AbortSignal): AsyncGenerator<never> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * A log as Octez's `/log` services answer it: the list; with `monitor`, the list, then each new
 * entry alone in a list, until the client goes away.
 */
async function* logStream<T>(current: T[], later: AsyncIterable<T> | undefined): AsyncGenerator<T[]> {
  yield current;
  if (later === undefined) return;
  for await (const entry of later) yield [entry];
}

/**
 * The `/network/*` services. `network` is the node's P2P layer, absent when it runs without one;
 * `announced` is the version the node announces (or would announce), for `/network/version`.
 */
export function networkServices(network: P2pNetwork | undefined, announced: NetworkVersion): Directory<void> {
  /** The pool, or Octez's `P2p_layer_disabled`. */
  const p2p = (): P2pNetwork => {
    if (network === undefined) throw p2pLayerDisabled.error(undefined);
    return network;
  };
  const version = () => network?.announcedVersion ?? announced;
  const pointTrusted = (p: string) => p2p().point(p)?.trusted === true;
  const peerTrusted = (id: string) => p2p().peer(id)?.trusted === true;

  /** A deprecated GET that changes a rule (`/ban`, `/unban`, `/trust`, `/untrust`), answering `{}`. */
  const change = (kind: "points" | "peers", arg: Arg<string>, acl: AclChange, description: string): Service<void> =>
    service({
      method: "GET",
      path: ["network", kind, arg, acl],
      description,
      output: emptyObject,
      handler: ({ params: [target] }) => {
        if (kind === "points") p2p().patchPoint(target, { acl });
        else p2p().patchPeer(target, { acl });
        return undefined;
      },
    });

  /** `/network/<kind>/<target>/log`, with `?monitor`. */
  const log = <T>(
    kind: "points" | "peers",
    arg: Arg<string>,
    item: Codec<T>,
    description: string,
    read: (n: P2pNetwork, target: string) => T[] | undefined,
    watch: (n: P2pNetwork, target: string, signal: AbortSignal) => AsyncIterable<T>,
  ): Service<void> =>
    streamService({
      method: "GET",
      path: ["network", kind, arg, "log"],
      description,
      query: query({ monitor: flag() }),
      output: list(item),
      handler: ({ params: [target], query: q, signal }) => {
        const n = p2p();
        const current = read(n, target);
        if (current === undefined) return logStream([], undefined);
        // the watch starts in the same turn as the log is read: no entry falls between them
        return logStream(current, q.monitor ? watch(n, target, signal) : undefined);
      },
    });

  const dir = new Directory();
  dir.register(
    // -- the node ------------------------------------------------------------------------------
    service({
      method: "GET",
      path: ["network", "self"],
      description: "Return the node's peer id",
      output: peerId,
      handler: () => p2p().peerId,
    }),
    service({
      method: "GET",
      path: ["network", "version"],
      description: "DEPRECATED: use `version` instead.",
      output: networkVersion,
      handler: version,
    }),
    service({
      method: "GET",
      path: ["network", "versions"],
      description: "DEPRECATED: use `version` instead.",
      output: list(networkVersion),
      handler: () => [version()],
    }),
    service({
      method: "GET",
      path: ["network", "stat"],
      description: "Global network bandwidth statistics in B/s.",
      output: stat,
      handler: () => p2p().stat(),
    }),
    streamService({
      method: "GET",
      path: ["network", "log"],
      description: "Stream of all network events",
      output: p2pEvent,
      handler: ({ signal }) => (network === undefined ? nothingUntil(signal) : network.events(signal)),
    }),
    service({
      method: "PUT",
      path: ["network", "points", pointArg],
      description: "Connect to a peer",
      query: query({ timeout: single(timespanArg, DEFAULT_CONNECT_TIMEOUT_S) }),
      input: emptyObject,
      output: emptyObject,
      handler: async ({ params: [point], query: q }) => {
        // Octez's timeout of zero or less fails at once; the pool takes a positive duration
        await p2p().connect(point, { timeoutMs: Math.max(1, q.timeout * 1000) });
        return undefined;
      },
    }),

    // -- connections ---------------------------------------------------------------------------
    service({
      method: "GET",
      path: ["network", "connections"],
      description: "List the running P2P connection.",
      output: list(connectionInfo),
      handler: () => p2p().connections(),
    }),
    service({
      method: "GET",
      path: ["network", "connections", peerIdArg],
      description: "Details about the current P2P connection to the given peer.",
      output: connectionInfo,
      optional: true,
      handler: ({ params: [id] }) => network?.connection(id),
    }),
    service({
      method: "DELETE",
      path: ["network", "connections", peerIdArg],
      description: "Forced close of the current P2P connection to the given peer.",
      query: query({ wait: flag() }),
      output: emptyObject,
      handler: async ({ params: [id], query: q }) => {
        await network?.disconnect(id, { wait: q.wait });
        return undefined;
      },
    }),

    // -- peers ---------------------------------------------------------------------------------
    service({
      method: "GET",
      path: ["network", "peers"],
      description: "List the peers the node ever met.",
      query: query({ filter: multi(peerFilterArg) }),
      output: list(tup(peerId, peerInfo)),
      handler: ({ query: q }) => p2p().peers(q.filter),
    }),
    service({
      method: "GET",
      path: ["network", "peers", peerIdArg],
      description: "Details about a given peer.",
      output: peerInfo,
      optional: true,
      handler: ({ params: [id] }) => p2p().peer(id),
    }),
    log("peers", peerIdArg, peerLogItem, "Monitor network events related to a given peer.", (n, id) => n.peerLog(id), (n, id, s) => n.watchPeer(id, s)),
    service({
      method: "PATCH",
      path: ["network", "peers", peerIdArg],
      description:
        "Change the permissions of a given peer. With `{acl: ban}`: blacklist the given peer and remove it from the whitelist if present. With `{acl: open}`: removes the peer from the blacklist and whitelist. With `{acl: trust}`: trust the given peer permanently and remove it from the blacklist if present. The peer cannot be blocked (but its host IP still can).",
      input: peerPatch,
      output: peerInfo,
      optional: true,
      handler: ({ params: [id], body }) => network?.patchPeer(id, body.acl === undefined ? {} : { acl: body.acl }),
    }),
    change(
      "peers",
      peerIdArg,
      "ban",
      "DEPRECATED: Blacklist the given peer and remove it from the whitelist if present. Use PATCH `network/peers/<peer_id>` instead.",
    ),
    change("peers", peerIdArg, "unban", "DEPRECATED: Remove the given peer from the blacklist. Use PATCH `network/peers/<peer_id>` instead."),
    change(
      "peers",
      peerIdArg,
      "trust",
      "DEPRECATED: Whitelist a given peer permanently and remove it from the blacklist if present. The peer cannot be blocked (but its host IP still can). Use PATCH `network/peers/<peer_id>` instead.",
    ),
    change("peers", peerIdArg, "untrust", "DEPRECATED: Remove a given peer from the whitelist. Use PATCH `network/peers/<peer_id>` instead."),
    service({
      method: "GET",
      path: ["network", "peers", peerIdArg, "banned"],
      description: "Check if a given peer is blacklisted or greylisted.",
      output: bool,
      handler: ({ params: [id] }) => !peerTrusted(id) && p2p().peerBanned(id),
    }),
    service({
      method: "GET",
      path: ["network", "greylist", "peers"],
      description: "List of the last greylisted peers.",
      output: list(peerId),
      handler: () => p2p().greylistedPeers(),
    }),

    // -- points --------------------------------------------------------------------------------
    service({
      method: "GET",
      path: ["network", "points"],
      description: "List the pool of known `IP:port` used for establishing P2P connections.",
      query: query({ filter: multi(pointFilterArg) }),
      output: list(tup(pointId, pointInfo)),
      handler: ({ query: q }) => p2p().points(q.filter),
    }),
    service({
      method: "GET",
      path: ["network", "points", pointArg],
      description: "Details about a given `IP:addr`.",
      output: pointInfo,
      optional: true,
      handler: ({ params: [p] }) => p2p().point(p),
    }),
    service({
      method: "PATCH",
      path: ["network", "points", pointArg],
      description:
        "Change the connectivity state of a given `IP:addr`. With `{acl : ban}`: blacklist the given address and remove it from the whitelist if present. With `{acl: open}`: removes an address from the blacklist and whitelist. With `{acl: trust}`: trust a given address permanently and remove it from the blacklist if present. With `{peer_id: <id>}` set the peerId of the point. Connections from this address can still be closed on authentication if the peer is greylisted. ",
      input: pointPatch,
      output: pointInfo,
      optional: true,
      handler: ({ params: [p], body }) =>
        network?.patchPoint(p, {
          ...(body.acl === undefined ? {} : { acl: body.acl }),
          ...(body.peer_id === undefined ? {} : { peerId: body.peer_id }),
        }),
    }),
    log("points", pointArg, pointLogItem, "Monitor network events related to an `IP:addr`.", (n, p) => n.pointLog(p), (n, p, s) => n.watchPoint(p, s)),
    change(
      "points",
      pointArg,
      "ban",
      "DEPRECATED: Blacklist the given address and remove it from the whitelist if present. Use PATCH `/network/point/<point_id>` instead.",
    ),
    change("points", pointArg, "unban", "DEPRECATED: Remove an address from the blacklist. Use PATCH `/network/point/:peerid` instead."),
    change(
      "points",
      pointArg,
      "trust",
      "DEPRECATED: Trust a given address permanently and remove it from the blacklist if present. Connections from this address can still be closed on authentication if the peer is greylisted. Use PATCH`/network/point/<point_id>` instead.",
    ),
    change("points", pointArg, "untrust", "DEPRECATED: Remove an address from the whitelist. Use PATCH `/network/point/<point_id>` instead."),
    service({
      method: "GET",
      path: ["network", "points", pointArg, "banned"],
      description: "Check if a given address is blacklisted or greylisted. Port component is unused.",
      output: bool,
      handler: ({ params: [p] }) => !pointTrusted(p) && p2p().pointBanned(p),
    }),

    // -- greylists -----------------------------------------------------------------------------
    service({
      method: "GET",
      path: ["network", "greylist", "ips"],
      description:
        'Returns an object that contains a list of IP and the field "not_reliable_since".\n           If the field "not_reliable_since" is None then the list contains the currently greylisted IP addresses.\n           If the field "not_reliable_since" Contains a date, this means that the greylist has been overflowed and it is no more possible to obtain the exact list of greylisted IPs. Since the greylist of IP addresses has been design to work whatever his size, there is no security issue related to this overflow.\n          Reinitialize the ACL structure by calling "delete /network/greylist" to get back this list reliable.',
      output: greylistedIps,
      handler: () => p2p().greylistedIps(),
    }),
    service({
      method: "GET",
      path: ["network", "greylist", "clear"],
      description:
        "DEPRECATED: Clear all greylists tables. This will unban all addresses and peers automatically greylisted by the system. Use DELETE `/network/greylist` instead",
      output: emptyObject,
      handler: () => {
        p2p().clearGreylist();
        return undefined;
      },
    }),
    service({
      method: "DELETE",
      path: ["network", "greylist"],
      description: "Clear all greylists tables. This will unban all addresses and peers automatically greylisted by the system.",
      output: emptyObject,
      handler: () => {
        if (network === undefined) throw failure.error({ msg: "The P2P layer is disabled." });
        network.clearGreylist();
        return undefined;
      },
    }),
  );
  return dir;
}
