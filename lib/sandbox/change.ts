/**
 * The sandbox's state changes (docs/sandbox.md, State) as values: what a change sets, its target
 * and value as `GET /sandbox/changes` lists them, and its stored form. Protocol-neutral: the
 * protocol that writes them into a context checks them (`lib/protocols/hangzhou/sandbox-changes.ts`).
 *
 * @example
 * ```ts
 * const change: SandboxChange = { kind: "balance", address: "tz1…", balance: 5_000_000n };
 * changeTarget(change); // "tz1…"
 * changeValue(change);  // "5000000"
 * ```
 * @module
 */
import type { Json } from "../encoding/codec.ts";
import type { Micheline } from "../encoding/micheline.ts";

/** One state change, queued for the next block the node bakes. */
export type SandboxChange =
  /** The spendable balance of an account (implicit or KT1), in mutez. */
  | { readonly kind: "balance"; readonly address: string; readonly balance: bigint }
  /** The storage of a smart contract, typed against its script. */
  | { readonly kind: "storage"; readonly contract: string; readonly storage: Micheline }
  /** The code of a smart contract; its storage must fit the new storage type. */
  | { readonly kind: "code"; readonly contract: string; readonly code: Micheline }
  /** The delegate of an account, or none (`null`). */
  | { readonly kind: "delegate"; readonly address: string; readonly delegate: string | null }
  /** The counter of an allocated implicit account. */
  | { readonly kind: "counter"; readonly address: string; readonly counter: bigint }
  /** A big map's binding of `key` to `value`, or its removal (`null`). */
  | { readonly kind: "big_map_entry"; readonly bigMap: bigint; readonly key: Micheline; readonly value: Micheline | null };

/** The kinds of {@link SandboxChange}. */
export type SandboxChangeKind = SandboxChange["kind"];

/** What a change is about: an address, a contract, or a big map id (decimal). */
export function changeTarget(change: SandboxChange): string {
  switch (change.kind) {
    case "balance":
    case "delegate":
    case "counter":
      return change.address;
    case "storage":
    case "code":
      return change.contract;
    case "big_map_entry":
      return change.bigMap.toString();
  }
}

/** What a change sets, as JSON (numbers as decimal strings, Micheline as JSON). */
export function changeValue(change: SandboxChange): Json {
  switch (change.kind) {
    case "balance":
      return change.balance.toString();
    case "storage":
      return change.storage as Json;
    case "code":
      return change.code as Json;
    case "delegate":
      return change.delegate;
    case "counter":
      return change.counter.toString();
    case "big_map_entry":
      return { key: change.key as Json, value: change.value as Json };
  }
}

/** The change of a kind, target and value as {@link changeTarget} and {@link changeValue} give them (the stored form). */
export function changeOf(kind: SandboxChangeKind, target: string, value: Json): SandboxChange {
  switch (kind) {
    case "balance":
      return { kind, address: target, balance: BigInt(value as string) };
    case "storage":
      return { kind, contract: target, storage: value as Micheline };
    case "code":
      return { kind, contract: target, code: value as Micheline };
    case "delegate":
      return { kind, address: target, delegate: value as string | null };
    case "counter":
      return { kind, address: target, counter: BigInt(value as string) };
    case "big_map_entry": {
      const v = value as unknown as { key: Micheline; value: Micheline | null };
      return { kind, bigMap: BigInt(target), key: v.key, value: v.value };
    }
  }
}
