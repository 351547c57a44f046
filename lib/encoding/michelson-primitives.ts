/**
 * Michelson primitives of protocol 011 Hangzhou: their binary codes (the index in
 * {@link HANGZHOU_PRIMITIVES}) and the order Octez prints them in JSON schemas.
 * @module
 */

/** Hangzhou's primitives; a primitive's binary code is its index (`parameter` = 0x00 ... `constant` = 0x92). */
export const HANGZHOU_PRIMITIVES: readonly string[] = [
  "parameter", "storage", "code", "False", "Elt", "Left", "None", "Pair", "Right", "Some", "True", "Unit",
  "PACK", "UNPACK", "BLAKE2B", "SHA256", "SHA512", "ABS", "ADD", "AMOUNT", "AND", "BALANCE", "CAR", "CDR",
  "CHECK_SIGNATURE", "COMPARE", "CONCAT", "CONS", "CREATE_ACCOUNT", "CREATE_CONTRACT", "IMPLICIT_ACCOUNT",
  "DIP", "DROP", "DUP", "EDIV", "EMPTY_MAP", "EMPTY_SET", "EQ", "EXEC", "FAILWITH", "GE", "GET", "GT",
  "HASH_KEY", "IF", "IF_CONS", "IF_LEFT", "IF_NONE", "INT", "LAMBDA", "LE", "LEFT", "LOOP", "LSL", "LSR",
  "LT", "MAP", "MEM", "MUL", "NEG", "NEQ", "NIL", "NONE", "NOT", "NOW", "OR", "PAIR", "PUSH", "RIGHT",
  "SIZE", "SOME", "SOURCE", "SENDER", "SELF", "STEPS_TO_QUOTA", "SUB", "SWAP", "TRANSFER_TOKENS",
  "SET_DELEGATE", "UNIT", "UPDATE", "XOR", "ITER", "LOOP_LEFT", "ADDRESS", "CONTRACT", "ISNAT", "CAST",
  "RENAME", "bool", "contract", "int", "key", "key_hash", "lambda", "list", "map", "big_map", "nat",
  "option", "or", "pair", "set", "signature", "string", "bytes", "mutez", "timestamp", "unit", "operation",
  "address", "SLICE", "DIG", "DUG", "EMPTY_BIG_MAP", "APPLY", "chain_id", "CHAIN_ID", "LEVEL",
  "SELF_ADDRESS", "never", "NEVER", "UNPAIR", "VOTING_POWER", "TOTAL_VOTING_POWER", "KECCAK", "SHA3",
  "PAIRING_CHECK", "bls12_381_g1", "bls12_381_g2", "bls12_381_fr", "sapling_state", "sapling_transaction",
  "SAPLING_EMPTY_STATE", "SAPLING_VERIFY_UPDATE", "ticket", "TICKET", "READ_TICKET", "SPLIT_TICKET",
  "JOIN_TICKETS", "GET_AND_UPDATE", "chest", "chest_key", "OPEN_CHEST", "VIEW", "view", "constant",
];

/** The same names in the order of the `enum` of Octez's JSON schema `011-PtHangz2.michelson.v1.primitives`. */
export const HANGZHOU_PRIMITIVES_SCHEMA_ORDER: readonly string[] = [
  "ABS", "IF", "SENDER", "VOTING_POWER", "False", "NEVER", "DUG", "chest", "BLAKE2B", "map", "bls12_381_g2",
  "Pair", "INT", "option", "bls12_381_g1", "storage", "SIZE", "view", "SHA256", "AND", "VIEW", "mutez",
  "NIL", "big_map", "SUB", "SAPLING_VERIFY_UPDATE", "CHECK_SIGNATURE", "TOTAL_VOTING_POWER", "address",
  "MAP", "or", "ticket", "ADD", "IMPLICIT_ACCOUNT", "SHA512", "key", "LSL", "bls12_381_fr", "chest_key",
  "sapling_state", "COMPARE", "TRANSFER_TOKENS", "STEPS_TO_QUOTA", "DROP", "set", "BALANCE", "CONCAT", "MUL",
  "FAILWITH", "Elt", "list", "OR", "DIP", "MEM", "LOOP_LEFT", "lambda", "ITER", "Some", "parameter",
  "sapling_transaction", "EMPTY_MAP", "None", "SET_DELEGATE", "pair", "AMOUNT", "string", "PAIRING_CHECK",
  "bytes", "CHAIN_ID", "HASH_KEY", "IF_LEFT", "CREATE_ACCOUNT", "LT", "KECCAK", "UNPACK", "SPLIT_TICKET",
  "SELF_ADDRESS", "unit", "UNIT", "LE", "SOURCE", "CREATE_CONTRACT", "Unit", "DIG", "NONE", "ISNAT", "GE",
  "SOME", "key_hash", "SELF", "signature", "CAR", "NOT", "operation", "CDR", "ADDRESS", "TICKET", "RIGHT",
  "LEFT", "RENAME", "True", "Right", "PACK", "IF_CONS", "SHA3", "constant", "UPDATE", "EMPTY_SET", "NEQ",
  "LAMBDA", "timestamp", "READ_TICKET", "LOOP", "Left", "int", "LSR", "EMPTY_BIG_MAP", "chain_id",
  "OPEN_CHEST", "LEVEL", "UNPAIR", "JOIN_TICKETS", "PUSH", "nat", "GT", "never", "NOW", "IF_NONE", "PAIR",
  "GET_AND_UPDATE", "XOR", "CAST", "bool", "SAPLING_EMPTY_STATE", "EDIV", "EQ", "CONTRACT", "contract",
  "EXEC", "GET", "NEG", "SLICE", "DUP", "CONS", "SWAP", "APPLY", "code",
];
