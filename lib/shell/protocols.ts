/**
 * The protocols a node knows: those it embeds (it can run them) and those injected through
 * `/injection/protocol` (stored, listed, but not runnable). New ones are announced to
 * `/monitor/protocols`.
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

  constructor(store: BlockStore, embedded: readonly string[]) {
    this.store = store;
    this.embedded = embedded;
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

  /** Stores an injected protocol record and announces it; false if it was already known. */
  async add(hash: string, record: Uint8Array): Promise<boolean> {
    if (this.store.protocol(hash) !== undefined) return false;
    await this.store.kv.write([this.store.putProtocol(hash, record)]);
    if (!this.isEmbedded(hash)) this.added.notify(hash);
    return true;
  }
}
