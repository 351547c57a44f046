/**
 * The protocols a node knows: those it embeds (it can run them, and serves their sources) and
 * those injected through `/injection/protocol` (stored, listed, but not runnable). New ones are
 * announced to `/monitor/protocols`.
 * @module
 */
import type { BlockStore } from "../store/block-store.ts";
import { Watcher } from "./watcher.ts";

/** Registry of known protocols over the block store's protocol table. */
export class ProtocolRegistry {
  /** Hashes of the protocols this node can run, in registration order. */
  readonly embedded: readonly string[];
  /** Each newly known protocol hash. */
  readonly added = new Watcher<string>();
  private readonly store: BlockStore;
  private readonly embeddedSources: ((hash: string) => Promise<Uint8Array | undefined>) | undefined;

  /** `sources`: the binary record (sources) of an embedded protocol, read when asked for. */
  constructor(store: BlockStore, embedded: readonly string[], sources?: (hash: string) => Promise<Uint8Array | undefined>) {
    this.store = store;
    this.embedded = embedded;
    this.embeddedSources = sources;
  }

  /** Every known protocol hash: embedded first, then stored ones. */
  list(): string[] {
    const out = [...this.embedded];
    for (const h of this.store.protocolHashes()) if (!out.includes(h)) out.push(h);
    return out;
  }

  /** Whether the node can run `hash`. */
  isEmbedded(hash: string): boolean {
    return this.embedded.includes(hash);
  }

  /** The stored record of an injected protocol. */
  record(hash: string): Uint8Array | undefined {
    return this.store.protocol(hash);
  }

  /** The record of a known protocol: the stored one, else an embedded protocol's sources. */
  async sources(hash: string): Promise<Uint8Array | undefined> {
    const stored = this.store.protocol(hash);
    if (stored !== undefined || !this.isEmbedded(hash)) return stored;
    return await this.embeddedSources?.(hash);
  }

  /** Stores an injected protocol record and announces it; false if it was already known (embedded or stored). */
  async add(hash: string, record: Uint8Array): Promise<boolean> {
    if (this.isEmbedded(hash) || this.store.protocol(hash) !== undefined) return false;
    await this.store.kv.write([this.store.putProtocol(hash, record)]);
    this.added.notify(hash);
    return true;
  }
}
