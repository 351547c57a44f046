/**
 * Impersonation (Anvil's `anvil_impersonateAccount`): while the sandbox impersonates an implicit
 * account, the manager operations whose source it is are applied whatever their signature, in
 * the mempool, in `preapply/operations` and in the blocks the node bakes. Hangzhou's encodings
 * stay as they are, so nothing in a receipt tells such an operation: the sandbox records it
 * instead, per block, in the store (`sandboxImpersonated`), before the block is stored; the
 * node's application of that block (again after a restart, or through the full path) accepts
 * exactly the operations recorded for it, and `GET /sandbox/impersonated_operations` lists them.
 *
 * An impersonated account need not have revealed its key: its operations are applied without a
 * reveal (there is no key to check a signature with, and none could be revealed without the
 * secret key hashing to the address); the account stays unrevealed. Which accounts are
 * impersonated is the node's state of the moment (a restart ends it); the records are kept.
 *
 * @example
 * ```ts
 * const imp = new Impersonation(kv, (hash) => chain.block(hash) !== undefined);
 * imp.impersonate("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx");
 * imp.building("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "oo…"); // true
 * ```
 * @module
 */
import { B58, b58decode, b58encode, b58tryDecode } from "../encoding/base58.ts";
import type { Json } from "../encoding/codec.ts";
import { jsonPreview } from "../encoding/json-text.ts";
import { obj, req } from "../encoding/object.ts";
import { string } from "../encoding/bytes.ts";
import { defineError, TezosError } from "../errors/registry.ts";
import { formatPublicKeyHash, parsePublicKeyHash } from "../crypto/keys.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { key, prefixRange, readU32, Table, tableRange, u32 } from "../store/tables.ts";
import type { SignatureWaived, SignatureWaivers, WaivedOperation } from "../shell/protocol.ts";

/** `sandbox.impersonation.invalid_address`: the address given is not a Tezos address. */
export const invalidAddress = defineError<{ address: string }>({
  id: "sandbox.impersonation.invalid_address",
  kind: "permanent",
  title: "Invalid address",
  description: "The address given is not a Tezos implicit account address (tz1…, tz2…, tz3…).",
  fields: obj(req("address", string)),
});

/** `sandbox.impersonation.originated_contract`: a KT1 given to impersonate. */
export const originatedContract = defineError<{ address: string }>({
  id: "sandbox.impersonation.originated_contract",
  kind: "permanent",
  title: "Not an implicit account",
  description:
    "Only implicit accounts (tz1…, tz2…, tz3…) can be impersonated: an originated contract (KT1…) signs nothing, its operations are emitted by its script.",
  fields: obj(req("address", string)),
});

/** An operation the sandbox included with its signature waived, as recorded. */
export interface ImpersonatedOperation {
  readonly operation: string;
  readonly block: string;
  readonly level: number;
  readonly source: string;
}

/**
 * The canonical form of an implicit account address; `sandbox.impersonation.invalid_address` or
 * `sandbox.impersonation.originated_contract` otherwise.
 */
export function implicitAccount(address: unknown): string {
  if (typeof address === "string") {
    try {
      return formatPublicKeyHash(parsePublicKeyHash(address));
    } catch {
      // told below
    }
    if (b58tryDecode(B58.contractHash, address) !== undefined) throw new TezosError(originatedContract.create({ address }));
  }
  // shown as given (a long text cut short; another value as its JSON text, however deep)
  const shown = typeof address !== "string" ? jsonPreview(address as Json) : address.length > 80 ? `${address.slice(0, 77)}...` : address;
  throw new TezosError(invalidAddress.create({ address: shown }));
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The impersonated accounts of a node, and its records (see the module documentation). */
export class Impersonation implements SignatureWaivers {
  private readonly kv: KeyValueStore;
  private readonly known: (block: string) => boolean;
  private readonly accounts = new Set<string>();

  /** Records in `kv`; `known(block)`: whether a block is still the node's (the listing leaves out others). */
  constructor(kv: KeyValueStore, known: (block: string) => boolean) {
    this.kv = kv;
    this.known = known;
  }

  /** Starts impersonating `address` (an implicit account); whether it was not already. */
  impersonate(address: string): boolean {
    const account = implicitAccount(address);
    if (this.accounts.has(account)) return false;
    this.accounts.add(account);
    return true;
  }

  /** Stops impersonating `address`; whether it was impersonated. */
  stop(address: string): boolean {
    return this.accounts.delete(implicitAccount(address));
  }

  /** The impersonated accounts, in the order they were added. */
  impersonated(): string[] {
    return [...this.accounts];
  }

  /** Whether the operations of `source` are applied whatever their signature now. */
  readonly building: SignatureWaived = (source) => this.accounts.has(source);

  /** For the application of `block`: the operations recorded for it, from their recorded source. */
  applying(block: string): SignatureWaived {
    const blockBytes = b58decode(B58.blockHash, block);
    return (source, operation) => {
      const value = this.kv.get(key(Table.sandboxImpersonated, blockBytes, b58decode(B58.operationHash, operation)));
      return value !== undefined && fromUtf8.decode(value.subarray(4)) === source;
    };
  }

  /** Records the operations of `block` included with their signature waived. */
  async record(block: { readonly hash: string; readonly level: number }, waived: readonly WaivedOperation[]): Promise<void> {
    const blockBytes = b58decode(B58.blockHash, block.hash);
    const level = u32(block.level);
    await this.kv.write(
      waived.map((op) => {
        const source = utf8.encode(op.source);
        const value = new Uint8Array(4 + source.length);
        value.set(level, 0);
        value.set(source, 4);
        return { key: key(Table.sandboxImpersonated, blockBytes, b58decode(B58.operationHash, op.hash)), value };
      }),
    );
  }

  /** The recorded operations of the node's blocks (`block` given: of that block only), by level. */
  operations(block?: string): ImpersonatedOperation[] {
    const range = block === undefined ? tableRange(Table.sandboxImpersonated) : prefixRange(key(Table.sandboxImpersonated, b58decode(B58.blockHash, block)));
    const out: ImpersonatedOperation[] = [];
    for (const [k, v] of this.kv.range(range)) {
      const hash = b58encode(B58.blockHash, k.subarray(1, 33));
      if (!this.known(hash)) continue;
      out.push({ operation: b58encode(B58.operationHash, k.subarray(33, 65)), block: hash, level: readU32(v, 0), source: fromUtf8.decode(v.subarray(4)) });
    }
    return out.sort((a, b) => a.level - b.level || (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
  }
}
