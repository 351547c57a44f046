/**
 * Who may connect (Octez `P2p_acl`): banned addresses and peers (until unbanned), greylisted
 * addresses (for `ip_greylist_cleanup_delay`, listed up to `ip_greylist_size` with the time the
 * list first overflowed) and the ring of the last greylisted peers (`peer_greylist_size`, 1023).
 * Addresses are canonical texts (`a.b.c.d`, RFC 5952 IPv6).
 *
 * Octez keeps greylisted addresses in a counting Bloom filter that forgets each one between
 * 15/16 and 16/16 of the cleanup delay after it was added; here each address is kept with its
 * own expiry, exactly one cleanup delay later.
 * @module
 */

/** A set that remembers insertion order and drops its oldest past `capacity` (Ringo's FIFO set). */
class FifoSet<T> {
  private readonly items = new Set<T>();
  readonly capacity: number;
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError(`a bounded set needs a positive capacity, got ${capacity}`);
    this.capacity = capacity;
  }
  get size(): number {
    return this.items.size;
  }
  add(x: T): void {
    this.items.delete(x);
    this.items.add(x);
    if (this.items.size > this.capacity) this.items.delete(this.items.values().next().value as T);
  }
  has(x: T): boolean {
    return this.items.has(x);
  }
  delete(x: T): void {
    this.items.delete(x);
  }
  clear(): void {
    this.items.clear();
  }
  /** Newest first. */
  list(): T[] {
    return [...this.items].reverse();
  }
}

/** Options of an {@link AccessControl}. */
export interface AclOptions {
  readonly peerGreylistSize: number;
  readonly ipGreylistSize: number;
  readonly ipGreylistCleanupDelayMs: number;
  readonly now: () => number;
}

/** The pool's access lists. */
export class AccessControl {
  private readonly greylistedIps = new Map<string, number>();
  private readonly ipList: FifoSet<string>;
  private notReliableSince: number | undefined;
  private readonly greylistedPeers: FifoSet<string>;
  private readonly bannedIps = new Set<string>();
  private readonly bannedPeers = new Set<string>();
  private readonly delay: number;
  private readonly now: () => number;

  constructor(o: AclOptions) {
    this.ipList = new FifoSet(o.ipGreylistSize);
    this.greylistedPeers = new FifoSet(o.peerGreylistSize);
    this.delay = o.ipGreylistCleanupDelayMs;
    this.now = o.now;
  }

  /** Greylists an address for the cleanup delay. */
  greylistAddr(addr: string): void {
    this.greylistedIps.set(addr, this.now() + this.delay);
    if (this.notReliableSince === undefined && !this.ipList.has(addr) && this.ipList.size === this.ipList.capacity) {
      this.notReliableSince = this.now();
    }
    this.ipList.add(addr);
  }

  /** Whether an address is greylisted now. */
  addrGreylisted(addr: string): boolean {
    const until = this.greylistedIps.get(addr);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.greylistedIps.delete(addr);
    this.ipList.delete(addr);
    return false;
  }

  /** Adds a peer to the greylist ring. */
  greylistPeer(peerId: string): void {
    this.greylistedPeers.add(peerId);
  }

  /** Bans an address (every port). */
  banAddr(addr: string): void {
    this.bannedIps.add(addr);
  }

  /** Bans a peer. */
  banPeer(peerId: string): void {
    this.bannedPeers.add(peerId);
  }

  /** Whether an address is banned or greylisted (Octez `banned_addr`). */
  bannedAddr(addr: string): boolean {
    return this.bannedIps.has(addr) || this.addrGreylisted(addr);
  }

  /** Whether an address is banned (not merely greylisted). */
  blacklistedAddr(addr: string): boolean {
    return this.bannedIps.has(addr);
  }

  /** Lifts the ban and the greylisting of an address. */
  unbanAddr(addr: string): void {
    this.bannedIps.delete(addr);
    this.greylistedIps.delete(addr);
    this.ipList.delete(addr);
  }

  /** Whether a peer is banned or greylisted (Octez `banned_peer`). */
  bannedPeer(peerId: string): boolean {
    return this.bannedPeers.has(peerId) || this.greylistedPeers.has(peerId);
  }

  /** Lifts the ban and the greylisting of a peer. */
  unbanPeer(peerId: string): void {
    this.bannedPeers.delete(peerId);
    this.greylistedPeers.delete(peerId);
  }

  /** Forgets every ban and greylisting (Octez `P2p_acl.clear`, what `DELETE /network/greylist` does). */
  clear(): void {
    this.greylistedIps.clear();
    this.ipList.clear();
    this.notReliableSince = undefined;
    this.greylistedPeers.clear();
    this.bannedIps.clear();
    this.bannedPeers.clear();
  }

  /** The greylisted addresses listed (newest first), and since when the list lost some. */
  greylistedIpList(): { ips: string[]; notReliableSince?: number } {
    const ips = this.ipList.list().filter((ip) => this.addrGreylisted(ip));
    return this.notReliableSince === undefined ? { ips } : { ips, notReliableSince: this.notReliableSince };
  }

  /** The greylisted peers (newest first). */
  greylistedPeerList(): string[] {
    return this.greylistedPeers.list();
  }
}
