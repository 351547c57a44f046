/**
 * The genesis protocol's errors (Octez `src/proto_genesis/lib_protocol/main.ml`). A protocol's
 * error ids carry the prefix `proto.<name>.` given by its environment; the genesis protocol's
 * environment is named `genesis` (its `dune.inc`: `module Name = struct let name = "genesis" end`),
 * so its ids are `proto.genesis.parsing_error` and `proto.genesis.invalid_signature`, both
 * permanent and without fields. (Numbered protocols use `proto.<NNN>-<hash prefix>.`, e.g.
 * `proto.011-PtHangz2.`; genesis has no number.)
 * @module
 */
import { errorScope, type ErrorDefinition } from "../../errors/mod.ts";

/** Id prefix of the genesis protocol's errors. */
export const GENESIS_ERROR_PREFIX = "proto.genesis.";

const genesis = errorScope(GENESIS_ERROR_PREFIX);

/** `proto.genesis.parsing_error`: the block's protocol data is not a signed genesis command. */
export const parsingError: ErrorDefinition = genesis.define({
  id: "parsing_error",
  kind: "permanent",
  title: "Parsing error",
  description: "Raised when a block header has not been parsed correctly",
});

/** `proto.genesis.invalid_signature`: the command is not signed by the genesis key. */
export const invalidSignature: ErrorDefinition = genesis.define({
  id: "invalid_signature",
  kind: "permanent",
  title: "Invalid signature",
  description: "Raised when the provided signature is invalid",
});
