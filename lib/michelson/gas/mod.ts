/**
 * Hangzhou (protocol 011) Michelson gas, in milligas (JS integers): the cost functions of
 * Octez's `Michelson_v1_gas.Cost_of` (`Interpreter` with its `Control` continuations,
 * `Typechecking`, `Unparsing`), the (de)serialization costs of `Script_repr`, storage access
 * costs, and the sizes they read.
 *
 * Use: `import * as Gas from "./gas/mod.ts"`, then e.g.
 * `ctx.gas.consume(Gas.Interp.addIntint(a, b))`, `Gas.Interp.compare(ty, a, b)`,
 * `Gas.Typecheck.parseDataCycle`, `Gas.Unparse.unparseDataCycle`, `Gas.Interp.control.undip`.
 *
 * Exactness: every function reproduces Octez v12.4's formula with its integer arithmetic
 * (saturation aside, see `arith.ts`). Checked against the tests_011 recorded traces
 * (test/michelson/gas-trace.test.ts): stack/pair/list instructions, DIP/DIP n/DIG/DUG/DROP n,
 * PAIR n/UNPAIR n, ADD/MUL/EDIV/SUB, CONCAT, COMPARE on 9 types, MEM on maps and big maps
 * (with key packing and hashing), PACK, KECCAK/SHA3/BLAKE2B, HASH_KEY, VOTING_POWER, BALANCE,
 * and the traced-run rules of `trace.ts`. The typed-IR size model (`ir-size.ts`,
 * `Script_typed_ir_size`) gives the nodes `parse_code` charges (`Script.nodesCost`) from a
 * script's type map, and the storage nodes `script_size` charges after a run; with the type
 * checker's cycle costs (`typechecking.ts`) charged where Octez charges them, the gas of every
 * traced reference run matches Octez's at every step (test/michelson/gas-traces.test.ts).
 * @module
 */
export * as Interp from "./interpreter.ts";
export * as Typecheck from "./typechecking.ts";
export * as Unparse from "./unparsing.ts";
export * as Script from "./script.ts";
export * as Storage from "./storage.ts";
export * as IrSize from "./ir-size.ts";
export * as Models from "./models.ts";
export * from "./trace.ts";
export * from "./arith.ts";
export * from "./size.ts";
