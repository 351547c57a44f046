/**
 * The errors of the sandbox's state changes (docs/sandbox.md, State), beside the protocol's own
 * (an unknown KT1 is `contract.non_existing_contract`, ill-typed storage Michelson's
 * `michelson_v1.ill_typed_data`, and so on): each refuses the change and queues nothing.
 * @module
 */
import { obj, req } from "../encoding/object.ts";
import { string } from "../encoding/bytes.ts";
import { defineError } from "../errors/registry.ts";

/** `sandbox.not_a_smart_contract`: storage or code asked of an account without script. */
export const notASmartContract = defineError<{ contract: string }>({
  id: "sandbox.not_a_smart_contract",
  kind: "permanent",
  title: "Not a smart contract",
  description: "Storage and code can only be set on an originated contract (KT1) that has a script.",
  fields: obj(req("contract", string)),
});

/** `sandbox.not_an_implicit_account`: a counter asked of an originated contract. */
export const notAnImplicitAccount = defineError<{ contract: string }>({
  id: "sandbox.not_an_implicit_account",
  kind: "permanent",
  title: "Not an implicit account",
  description: "Only implicit accounts (tz1, tz2, tz3) have a counter.",
  fields: obj(req("contract", string)),
});

/** `sandbox.counter_in_the_past`: a counter below the account's current one. */
export const counterBelowCurrent = defineError<{ contract: string; current: string; requested: string }>({
  id: "sandbox.counter_in_the_past",
  kind: "permanent",
  title: "Counter below the current one",
  description:
    "A counter may only be raised (or set to its current value): lowering it would let operations already included be applied again.",
  fields: obj(req("contract", string), req("current", string), req("requested", string)),
});

/** `sandbox.unknown_big_map`: a big map id that the context does not hold. */
export const unknownBigMap = defineError<{ big_map: string }>({
  id: "sandbox.unknown_big_map",
  kind: "permanent",
  title: "Unknown big map",
  description: "No big map has this id in the head's context.",
  fields: obj(req("big_map", string)),
});

/** `sandbox.unsupported_protocol`: the head's protocol does not take state changes. */
export const unsupportedProtocol = defineError<{ protocol: string }>({
  id: "sandbox.unsupported_protocol",
  kind: "temporary",
  title: "No state changes on this protocol",
  description: "The sandbox's state changes are written by the protocol of the head; this one takes none (activate Hangzhou first).",
  fields: obj(req("protocol", string)),
});
