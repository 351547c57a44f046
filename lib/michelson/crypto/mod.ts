/**
 * Cryptographic primitives of Michelson (protocol 011 Hangzhou) as pure functions: BLS12-381
 * (`bls12-381.ts`), timelock chests (`timelock.ts`), the hash instructions (`hash.ts`) and
 * CHECK_SIGNATURE (`signature.ts`).
 * @module
 */
export * from "./bls12-381.ts";
export * from "./hash.ts";
export * from "./signature.ts";
export * from "./timelock.ts";
