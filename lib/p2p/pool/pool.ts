/**
 * The P2P pool (Octez `P2p`): the tables, the connect handler, the maintenance and the answerer
 * put together, listening and dialling through the platform's transport, as {@link P2pPool}.
 * @module
 */
import { cryptoboxPublicKeyHash } from "../../encoding/hashes.ts";
import { failure } from "../../errors/core.ts";
import type { ChainMessage } from "../encoding/chain-messages.ts";
import type { NetworkVersion } from "../encoding/connection.ts";
import { canonicalHost } from "../encoding/point.ts";
import type { Listener } from "../transport.ts";
import { announcedVersion } from "../version.ts";
import type {
  AclChange,
  ChainMessageHandler,
  ConnectionView,
  P2pEvent,
  P2pPool,
  PeerInfo,
  PeerLink,
  PeerLogItem,
  PointInfo,
  PointLogItem,
  PoolOptions,
  Stat,
  StateFilter,
} from "./api.ts";
import { ConnectHandler } from "./connect-handler.ts";
import type { PeerConnection } from "./connection.ts";
import { parsePointText } from "./errors.ts";
import { KnownTables } from "./known.ts";
import { bounds, checkLimits, DEFAULT_TUNING, type PoolTuning } from "./limits.ts";
import { Maintenance } from "./maintenance.ts";
import { Answerer } from "./protocol.ts";
import { Flows } from "./stat.ts";

/** The rule changes `patchPoint` and `patchPeer` take: Octez's three ACLs and the deprecated GETs' halves. */
const ACL_CHANGES: readonly AclChange[] = ["open", "trust", "ban", "unban", "untrust"];

function emptyStream<T>(): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => ({ next: async () => ({ value: undefined, done: true as const }) }) };
}

function isWildcard(host: string): boolean {
  const c = canonicalHost(host);
  return c === undefined || c === "0.0.0.0" || c === "::";
}

function checkPeerId(peerId: string): void {
  try {
    if (typeof peerId !== "string") throw new TypeError();
    cryptoboxPublicKeyHash.fromJson(peerId);
  } catch {
    throw failure.error({ msg: `Cannot parse peer id ${JSON.stringify(String(peerId))}` });
  }
}

function checkOptions(o: PoolOptions): void {
  if (typeof o !== "object" || o === null) throw new TypeError("createPool: options must be an object");
  if (typeof o.transport !== "object" || o.transport === null) throw new TypeError("createPool: transport is required");
  if (typeof o.identity !== "object" || o.identity === null || typeof o.identity.peerId !== "string") throw new TypeError("createPool: identity is required");
  if (typeof o.chainName !== "string") throw new TypeError("createPool: chainName must be a string");
  if (typeof o.expectedPow !== "number" || !(o.expectedPow >= 0)) throw new RangeError("createPool: expectedPow must be a non-negative number");
  if (!Array.isArray(o.bootstrapPeers)) throw new TypeError("createPool: bootstrapPeers must be an array of points");
  if (typeof o.privateMode !== "boolean") throw new TypeError("createPool: privateMode must be a boolean");
  checkLimits(o.limits);
}

class Pool implements P2pPool {
  readonly peerId: string;
  readonly announcedVersion: NetworkVersion;
  readonly supportedVersions: readonly NetworkVersion[];
  private readonly o: PoolOptions;
  private readonly tables: KnownTables;
  private readonly handler: ConnectHandler;
  private readonly maintenance: Maintenance;
  private readonly flows = new Flows();
  private listener: Listener | undefined;
  private acceptLoop: Promise<void> | undefined;
  private chainHandler: ChainMessageHandler | undefined;
  private readonly peerListeners = new Set<(link: PeerLink, change: "connected" | "disconnected") => void>();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private lastTick = 0;
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(o: PoolOptions, tuning: PoolTuning) {
    this.o = o;
    this.peerId = o.identity.peerId;
    this.announcedVersion = announcedVersion(o.chainName);
    this.supportedVersions = [this.announcedVersion];
    const log = o.log ?? (() => {});
    const safeLog = (line: string) => {
      try {
        log(line);
      } catch {
        // a logger that throws loses its line, nothing else
      }
    };
    this.tables = new KnownTables({ tuning, now: o.now ?? Date.now, log: safeLog });
    const answerer = new Answerer(this.tables, o.privateMode, (p) => this.handler.connect(p));
    this.handler = new ConnectHandler(this.tables, {
      transport: o.transport,
      identity: o.identity,
      chainName: o.chainName,
      expectedPow: o.expectedPow,
      privateMode: o.privateMode,
      limits: o.limits,
      announcedPort: () => this.listener?.local.port,
      localHost: (host) => this.localHostFor(host),
      metadata: { disable_mempool: false, private_node: o.privateMode },
      onPeerMessage: (conn, m) => answerer.handle(conn, m),
      onChainMessage: (conn, m) => this.chainMessage(conn, m),
      onConnected: (conn) => this.peerChange(conn, "connected"),
      onDisconnected: (conn) => {
        const d = conn.sample();
        this.flows.sent.add(d.sent);
        this.flows.received.add(d.received);
        this.peerChange(conn, "disconnected");
      },
    });
    this.maintenance = new Maintenance(this.tables, this.handler, bounds(o.limits), o.privateMode);
    for (const text of o.bootstrapPeers) {
      const { point, peerId } = parsePointText(text);
      this.tables.registerPoint(point, peerId === undefined ? { trusted: true } : { trusted: true, expectedPeerId: peerId });
    }
  }

  private localHostFor(host: string): string | undefined {
    const at = this.o.listen?.host;
    if (at === undefined || !this.o.transport.bindsLocalAddress || isWildcard(at)) return undefined;
    const local = canonicalHost(at)!;
    return local.includes(":") === (canonicalHost(host) ?? host).includes(":") ? local : undefined;
  }

  private chainMessage(conn: PeerConnection, message: ChainMessage): void {
    const h = this.chainHandler;
    if (h !== undefined) h(conn.link, message);
  }

  private peerChange(conn: PeerConnection, change: "connected" | "disconnected"): void {
    for (const f of [...this.peerListeners]) {
      try {
        f(conn.link, change);
      } catch (e) {
        this.tables.log(`p2p: a peer listener failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /** Moves every connection's new bytes into the global meters. */
  private sampleAll(): void {
    for (const c of this.tables.connections()) {
      const d = c.sample();
      this.flows.sent.add(d.sent);
      this.flows.received.add(d.received);
    }
  }

  private tick(): void {
    const now = Date.now();
    const elapsed = now - this.lastTick;
    this.lastTick = now;
    this.sampleAll();
    for (const c of this.tables.connections()) c.flows.refresh(elapsed);
    this.flows.refresh(elapsed);
  }

  // -- P2pNetwork -----------------------------------------------------------------------------

  stat(): Stat {
    this.sampleAll();
    return this.flows.stat();
  }

  connections(): ConnectionView[] {
    return this.tables.connections().map((c) => c.view());
  }

  connection(peerId: string): ConnectionView | undefined {
    return this.tables.connectionOf(peerId)?.view();
  }

  async disconnect(peerId: string, options: { wait?: boolean } = {}): Promise<boolean> {
    const conn = this.tables.connectionOf(peerId);
    if (conn === undefined) return false;
    await conn.disconnect(options.wait === true);
    return true;
  }

  points(filter: readonly StateFilter[] = []): [string, PointInfo][] {
    const out: [string, PointInfo][] = [];
    for (const [key, p] of this.tables.points) if (filter.length === 0 || filter.includes(p.state.kind)) out.push([key, p.info()]);
    return out;
  }

  point(text: string): PointInfo | undefined {
    return this.tables.points.get(parsePointText(text).key)?.info();
  }

  async connect(text: string, options: { timeoutMs?: number } = {}): Promise<void> {
    const { point } = parsePointText(text);
    const t = options.timeoutMs;
    if (t !== undefined && !(typeof t === "number" && t > 0)) throw new RangeError("connect: timeoutMs must be a positive number");
    await this.handler.connect(point, t);
  }

  patchPoint(text: string, change: { acl?: AclChange; peerId?: string }): PointInfo | undefined {
    const { point, key } = parsePointText(text);
    if (change.acl !== undefined && !ACL_CHANGES.includes(change.acl)) {
      throw failure.error({ msg: `Unknown acl ${JSON.stringify(String(change.acl))}: expected open, trust or ban` });
    }
    if (change.peerId !== undefined) checkPeerId(change.peerId);
    const t = this.tables;
    const known = () => t.points.get(key);
    if (change.peerId !== undefined) {
      const r = known();
      if (r !== undefined) t.setExpectedPeerId(r, change.peerId);
    }
    const unban = () => {
      t.acl.unbanAddr(point.host);
      for (const c of t.connectionsOfAddr(point.host)) t.acl.unbanPeer(c.peerId);
    };
    switch (change.acl) {
      case "ban": {
        const r = known();
        if (r !== undefined) r.trusted = false;
        t.acl.banAddr(point.host);
        for (const c of t.connectionsOfAddr(point.host)) {
          t.acl.banPeer(c.peerId);
          void c.disconnect();
        }
        break;
      }
      case "trust":
        unban();
        t.registerPoint(point, { trusted: true });
        break;
      case "open": {
        unban();
        const r = known();
        if (r !== undefined) r.trusted = false;
        break;
      }
      // the deprecated GET /network/points/<point>/unban and /untrust: one half of open each
      case "unban":
        unban();
        break;
      case "untrust": {
        const r = known();
        if (r !== undefined) r.trusted = false;
        break;
      }
    }
    return known()?.info();
  }

  pointBanned(text: string): boolean {
    return this.tables.pointBanned(parsePointText(text).point);
  }

  pointLog(text: string): PointLogItem[] | undefined {
    return this.tables.points.get(parsePointText(text).key)?.log.elements();
  }

  watchPoint(text: string, signal: AbortSignal): AsyncIterable<PointLogItem> {
    const r = this.tables.points.get(parsePointText(text).key);
    return r === undefined ? emptyStream() : r.log.watchers.watch(signal);
  }

  private peerInfo(peerId: string): PeerInfo | undefined {
    const r = this.tables.peers.get(peerId);
    if (r === undefined) return undefined;
    const conn = r.state.kind === "running" ? r.state.conn : undefined;
    if (conn !== undefined) {
      const d = conn.sample();
      this.flows.sent.add(d.sent);
      this.flows.received.add(d.received);
    }
    return r.info(conn?.flows.stat());
  }

  peers(filter: readonly StateFilter[] = []): [string, PeerInfo][] {
    const out: [string, PeerInfo][] = [];
    for (const [id, p] of this.tables.peers) if (filter.length === 0 || filter.includes(p.state.kind)) out.push([id, this.peerInfo(id)!]);
    return out;
  }

  peer(peerId: string): PeerInfo | undefined {
    return this.peerInfo(peerId);
  }

  patchPeer(peerId: string, change: { acl?: AclChange }): PeerInfo | undefined {
    checkPeerId(peerId);
    const t = this.tables;
    switch (change.acl) {
      case undefined:
        break;
      case "ban": {
        const r = t.peers.get(peerId);
        if (r !== undefined) r.trusted = false;
        t.acl.banPeer(peerId);
        void t.connectionOf(peerId)?.disconnect();
        break;
      }
      case "trust":
        t.acl.unbanPeer(peerId);
        t.registerPeer(peerId).trusted = true;
        break;
      case "open": {
        t.acl.unbanPeer(peerId);
        const r = t.peers.get(peerId);
        if (r !== undefined) r.trusted = false;
        break;
      }
      // the deprecated GET /network/peers/<id>/unban and /untrust: one half of open each
      case "unban":
        t.acl.unbanPeer(peerId);
        break;
      case "untrust": {
        const r = t.peers.get(peerId);
        if (r !== undefined) r.trusted = false;
        break;
      }
      default:
        throw failure.error({ msg: `Unknown acl ${JSON.stringify(String(change.acl))}: expected open, trust or ban` });
    }
    return this.peerInfo(peerId);
  }

  peerBanned(peerId: string): boolean {
    return this.tables.acl.bannedPeer(peerId);
  }

  peerLog(peerId: string): PeerLogItem[] | undefined {
    return this.tables.peers.get(peerId)?.log.elements();
  }

  watchPeer(peerId: string, signal: AbortSignal): AsyncIterable<PeerLogItem> {
    const r = this.tables.peers.get(peerId);
    return r === undefined ? emptyStream() : r.log.watchers.watch(signal);
  }

  clearGreylist(): void {
    this.tables.acl.clear();
  }

  greylistedIps(): { ips: string[]; notReliableSince?: number } {
    return this.tables.acl.greylistedIpList();
  }

  greylistedPeers(): string[] {
    return this.tables.acl.greylistedPeerList();
  }

  events(signal: AbortSignal): AsyncIterable<P2pEvent> {
    return this.tables.events.watch(signal);
  }

  // -- P2pPool --------------------------------------------------------------------------------

  setChainMessageHandler(handler: ChainMessageHandler | undefined): void {
    this.chainHandler = handler;
  }

  onPeerChange(listener: (link: PeerLink, change: "connected" | "disconnected") => void): () => void {
    this.peerListeners.add(listener);
    return () => void this.peerListeners.delete(listener);
  }

  links(): PeerLink[] {
    return this.tables.connections().map((c) => c.link);
  }

  start(): Promise<void> {
    return (this.started ??= this.doStart());
  }

  private async doStart(): Promise<void> {
    if (this.closing !== undefined) throw new Error("the pool is closed");
    if (this.o.listen !== undefined) {
      const listener = await this.o.transport.listen(this.o.listen);
      if (this.closing !== undefined) {
        await listener.close();
        return;
      }
      this.listener = listener;
      this.acceptLoop = (async () => {
        try {
          for await (const connection of listener.connections) this.handler.accept(connection);
        } catch (e) {
          this.tables.log(`p2p: the listener stopped: ${e instanceof Error ? e.message : String(e)}`);
        }
      })();
    }
    this.lastTick = Date.now();
    this.ticker = setInterval(() => this.tick(), this.tables.tuning.statRefreshMs);
    this.maintenance.activate();
  }

  close(): Promise<void> {
    return (this.closing ??= this.doClose());
  }

  private async doClose(): Promise<void> {
    try {
      await this.started;
    } catch {
      // a start that failed has nothing to stop
    }
    await this.listener?.close();
    await this.acceptLoop;
    const stopping = this.maintenance.shutdown();
    await this.handler.close();
    await Promise.all(this.tables.connections().map((c) => c.disconnect()));
    await stopping;
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.tables.events.close();
    for (const p of this.tables.points.values()) p.log.watchers.close();
    for (const p of this.tables.peers.values()) p.log.watchers.close();
  }
}

/**
 * Creates the P2P pool (not yet listening nor connecting: see {@link P2pPool.start}). `tuning`
 * overrides Octez's defaults of the settings its configuration file holds ({@link DEFAULT_TUNING}).
 * Throws a TezosError for a malformed bootstrap peer, a RangeError for inconsistent limits.
 */
export function createPool(options: PoolOptions, tuning: Partial<PoolTuning> = {}): Promise<P2pPool> {
  try {
    checkOptions(options);
    return Promise.resolve(new Pool(options, { ...DEFAULT_TUNING, ...tuning }));
  } catch (e) {
    return Promise.reject(e);
  }
}

