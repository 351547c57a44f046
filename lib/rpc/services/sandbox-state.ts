/**
 * The state controls (docs/sandbox.md, State): set a balance, a contract's storage or code, a
 * delegate, a counter, a big map entry. Each answers the change's record (`GET /sandbox/changes`
 * lists them all): the change is checked on the head at once (a bad one is an error and queues
 * nothing) and written into the next block the node bakes. In `auto` bake mode the node bakes
 * that block at once and the answer waits for it (status `applied` or `skipped`); in the other
 * modes the answer is `pending` until the next bake.
 *
 * All are refused unless the node runs a sandbox chain and while it has P2P peers. Amounts and
 * counters are decimal strings, as Octez writes them; Micheline is JSON.
 * @module
 */
import type { Json } from "../../encoding/codec.ts";
import { expression } from "../../encoding/hangzhou/script.ts";
import { contractId, mutez } from "../../encoding/hangzhou/basic.ts";
import { publicKeyHash } from "../../encoding/keys.ts";
import { obj, req } from "../../encoding/object.ts";
import { option } from "../../encoding/union.ts";
import { n, z } from "../../encoding/zarith.ts";
import type { SandboxChange } from "../../sandbox/change.ts";
import type { SandboxChanges } from "../../sandbox/changes.ts";
import type { SandboxGuard } from "../../sandbox/guard.ts";
import { anyJson } from "../json_any.ts";
import { Directory } from "../directory.ts";
import { service } from "../service.ts";

/** What the state services act on. */
export interface StateView {
  readonly guard: SandboxGuard;
  readonly changes: SandboxChanges;
  /**
   * Bakes a block at once when the node bakes in `auto` mode, and answers whether it did: the
   * answer then tells the change as that block holds it. A failed bake is the request's error
   * (the change stays queued for the next block).
   */
  readonly bakeInAutoMode: () => Promise<boolean>;
}

/** A change as `GET /sandbox/changes` lists it (JSON as it is: its value is a number string, Micheline or an object). */
const RECORD_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "integer", minimum: 1 },
    kind: { type: "string", enum: ["balance", "storage", "code", "delegate", "counter", "big_map_entry"] },
    target: { type: "string" },
    value: {},
    status: { type: "string", enum: ["pending", "applied", "skipped", "reverted"] },
    level: { type: "integer" },
    block: { type: "string" },
    error: {},
  },
  required: ["id", "kind", "target", "value", "status"],
  additionalProperties: false,
};
const changeRecord = anyJson(RECORD_SCHEMA);
const changeRecords = anyJson({ type: "array", items: RECORD_SCHEMA });

/** The state services over `view`. */
export function sandboxStateServices(view: StateView): Directory<void> {
  const { guard, changes } = view;
  /** Queues a change (peers refused first) and answers its record, once in a block in `auto` mode. */
  const queue = async (change: SandboxChange): Promise<Json> => {
    guard.requireNoPeers();
    const record = await changes.queue(change);
    return ((await view.bakeInAutoMode()) ? await changes.settled(record.id) : record) as unknown as Json;
  };
  const NOTE = "Checked on the head first: an error queues nothing. Written into the next block the node bakes; in auto bake mode that block is baked right away and the answer waits for it. Refused while P2P peers are connected. Answers the change's record.";
  return new Directory().register(
    service({
      method: "POST",
      path: ["sandbox", "set_balance"],
      description: `Sandbox only (not an Octez service): set the spendable balance of an account, implicit (allocated if new, removed at 0 unless a delegate) or originated, in mutez; its delegate's staking balance and rolls follow. ${NOTE}`,
      input: obj(req("address", contractId), req("balance", mutez)),
      output: changeRecord,
      handler: ({ body }) => queue({ kind: "balance", address: body.address, balance: body.balance }),
    }),
    service({
      method: "POST",
      path: ["sandbox", "set_storage"],
      description: `Sandbox only (not an Octez service): set the storage of a smart contract (Micheline JSON), typechecked against its storage type; big maps may be given by id or as literals. ${NOTE}`,
      input: obj(req("contract", contractId), req("storage", expression)),
      output: changeRecord,
      handler: ({ body }) => queue({ kind: "storage", contract: body.contract, storage: body.storage }),
    }),
    service({
      method: "POST",
      path: ["sandbox", "set_code"],
      description: `Sandbox only (not an Octez service): set the code of a smart contract (Micheline JSON), typechecked as an origination's; its current storage must fit the new storage type. ${NOTE}`,
      input: obj(req("contract", contractId), req("code", expression)),
      output: changeRecord,
      handler: ({ body }) => queue({ kind: "code", contract: body.contract, code: body.code }),
    }),
    service({
      method: "POST",
      path: ["sandbox", "set_delegate"],
      description: `Sandbox only (not an Octez service): set the delegate of an allocated account (null: none), with a delegation's rules (a registered delegate, or the account itself to register it). ${NOTE}`,
      input: obj(req("address", contractId), req("delegate", option(publicKeyHash))),
      output: changeRecord,
      handler: ({ body }) => queue({ kind: "delegate", address: body.address, delegate: body.delegate ?? null }),
    }),
    service({
      method: "POST",
      path: ["sandbox", "set_counter"],
      description: `Sandbox only (not an Octez service): set the counter of an allocated implicit account; never below its current counter (operations already included would become valid again). ${NOTE}`,
      input: obj(req("address", contractId), req("counter", n)),
      output: changeRecord,
      handler: ({ body }) => queue({ kind: "counter", address: body.address, counter: body.counter }),
    }),
    service({
      method: "POST",
      path: ["sandbox", "set_big_map_entry"],
      description: `Sandbox only (not an Octez service): bind \`key\` to \`value\` in a big map (null: remove the key), both Micheline JSON typechecked against the big map's types. ${NOTE}`,
      input: obj(req("big_map", z), req("key", expression), req("value", option(expression))),
      output: changeRecord,
      handler: ({ body }) => queue({ kind: "big_map_entry", bigMap: body.big_map, key: body.key, value: body.value ?? null }),
    }),
    service({
      method: "GET",
      path: ["sandbox", "changes"],
      description:
        "Sandbox only (not an Octez service): the state changes queued through /sandbox/set_…, oldest first, with their status: pending, applied (with the level and hash of the block that holds it), skipped (with the error of a change that no longer held when its block was built), or reverted (its block forgotten by /sandbox/revert).",
      output: changeRecords,
      handler: () => {
        guard.requireSandbox();
        return changes.list() as unknown as Json;
      },
    }),
  );
}
