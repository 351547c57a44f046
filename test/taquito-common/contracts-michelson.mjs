/**
 * What the contract scenarios share: the Michelson sources they originate, Hangzhou's receipts
 * computed from outside the node (KT1 addresses from the operation hash, canonical locations,
 * burns), and a memoized originator account funded once per sandbox.
 * @module
 */
import { createHash } from "node:crypto";

// The node's own dependencies (root node_modules), by file: the pinned folders carry other
// versions of these packages under the same names.
const { blake2b } = await import(new URL("../../node_modules/@noble/hashes/blake2.js", import.meta.url).href);
const { default: bs58check } = await import(new URL("../../node_modules/bs58check/src/esm/index.js", import.meta.url).href);

/** A counter with an int storage and three named entrypoints; `decrement` below zero fails with a string. */
export const COUNTER = `
parameter (or (or (int %increment) (int %decrement)) (unit %reset)) ;
storage int ;
code { UNPAIR ;
       IF_LEFT
         { IF_LEFT
             { ADD }
             { SWAP ; SUB ;
               DUP ; GE ;
               IF {} { PUSH string "counter would go below zero" ; FAILWITH } } }
         { DROP 2 ; PUSH int 0 } ;
       NIL operation ; PAIR }
`;

/** The message the counter fails with. */
export const COUNTER_FAILURE = "counter would go below zero";

/**
 * Octez's `mini_scenarios/big_map_entrypoints.tz` (tests_python/contracts_011): two big maps
 * string → nat, entrypoints mem/add/rem on each (`mem_*` fails with Unit on an absent key), and
 * `default` originates a contract holding a copy of the left map. Copied unchanged but for
 * blank lines; sections in the file's order (storage first), which Taquito keeps for text.
 */
export const BIG_MAP_ENTRYPOINTS = `
storage
  (pair (big_map string nat) (big_map string nat)) ;
parameter
  (or (unit %default)
      (or (or %mem (string %mem_left) (string %mem_right))
          (or (or %add (pair %add_left string nat) (pair %add_right string nat))
              (or %rem (string %rem_left) (string %rem_right))))) ;
code { UNPAIR ;
       IF_LEFT
         { DROP ;
           DUP ; CAR ;
           PUSH mutez 0 ;
           NONE key_hash ;
           CREATE_CONTRACT
             { parameter string ;
               storage (big_map string nat) ;
               code { UNPAIR ; DROP ; NIL operation ; PAIR }} ;
           DIP { DROP } ;
           NIL operation ; SWAP ; CONS ; PAIR }
         { IF_LEFT
             { IF_LEFT
                 { DIP { UNPAIR } ; DIP { DUP } ; MEM ; ASSERT }
                 { DIP { UNPAIR ; SWAP } ; DIP { DUP } ; MEM ; ASSERT ; SWAP } }
             { IF_LEFT
                 { IF_LEFT
                     { UNPAIR ; DIIP { UNPAIR } ; DIP { SOME } ; UPDATE }
                     { UNPAIR ; DIIP { UNPAIR ; SWAP } ; DIP { SOME } ; UPDATE ; SWAP } }
                 { IF_LEFT
                     { DIP { UNPAIR } ; DIP { NONE nat } ; UPDATE }
                     { DIP { UNPAIR ; SWAP } ; DIP { NONE nat } ; UPDATE ; SWAP } } } ;
           PAIR ; NIL operation ; PAIR } }
`;

/**
 * Octez's `mini_scenarios/default_account.tz`: sends 100 tez to the implicit account whose key
 * hash is the parameter, by an internal transaction (its header comment left out).
 */
export const DEFAULT_ACCOUNT = `
parameter key_hash;
storage unit;
code {DIP{UNIT}; CAR; IMPLICIT_ACCOUNT;
      PUSH mutez 100000000; UNIT; TRANSFER_TOKENS;
      NIL operation; SWAP; CONS; PAIR}
`;

/** What `default_account.tz` sends per call, in mutez. */
export const DEFAULT_ACCOUNT_AMOUNT = 100_000_000n;

/** Hangzhou sandbox constants: `cost_per_byte` (mutez) and `origination_size` (bytes). */
export const COST_PER_BYTE = 250n;
export const ORIGINATION_SIZE = 257n;

/** The proto-prefixed error ids of Hangzhou. */
export const ID = {
  scriptRejected: "proto.011-PtHangz2.michelson_v1.script_rejected",
  runtimeError: "proto.011-PtHangz2.michelson_v1.runtime_error",
};

/**
 * The KT1 address Hangzhou gives to the `index`-th origination of operation `opHash`
 * (`Contract_repr.originated_contract`): BLAKE2b-160 of the operation hash's 32 bytes followed
 * by the index as a big-endian int32.
 */
export function originatedAddress(opHash, index = 0) {
  const hash = bs58check.decode(opHash).subarray(2); // "o" prefix: 05 74
  const nonce = new Uint8Array(36);
  nonce.set(hash, 0);
  new DataView(nonce.buffer).setInt32(32, index);
  const digest = blake2b(nonce, { dkLen: 20 });
  const payload = new Uint8Array(23);
  payload.set([2, 90, 121], 0); // KT1
  payload.set(digest, 3);
  return bs58check.encode(payload);
}

/** `expr…` of packed bytes (hex): Base58Check of BLAKE2b-256, Octez's `Script_expr_hash`. */
export function scriptExprHash(packedHex) {
  const digest = blake2b(Uint8Array.from(Buffer.from(packedHex, "hex")), { dkLen: 32 });
  const payload = new Uint8Array(36);
  payload.set([13, 44, 64, 27], 0); // expr
  payload.set(digest, 4);
  return bs58check.encode(payload);
}

/**
 * The canonical location (Micheline `strip_locations`: prefix order from 0 at the root, every
 * node counted, annotations not) of the first node of `root` for which `match(node)` holds.
 */
export function canonicalLocation(root, match) {
  let next = 0;
  const walk = (node) => {
    const here = next++;
    if (match(node)) return here;
    const children = Array.isArray(node) ? node : (node.args ?? []);
    for (const child of children) {
      const found = walk(child);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(root);
}

/** Micheline `{prim}` predicate. */
export const prim = (name) => (node) => !Array.isArray(node) && node.prim === name;

/**
 * The Micheline JSON Taquito sends for a script in text: michel-codec's parse with the
 * macros expanded for Hangzhou, sections kept in the order written.
 */
export function parseScript(michelCodec, text, protocol) {
  const script = new michelCodec.Parser({ protocol }).parseScript(text);
  if (script === null) throw new Error("empty script");
  return script;
}

/** The manager-operation content results of an operation Taquito preapplied (`op.results`). */
export function resultsOf(op) {
  return op.results.filter((c) => c.metadata?.operation_result !== undefined);
}

/** A Hangzhou balance update of a contract (`origin` "block"). */
export const credit = (contract, change) => ({ kind: "contract", contract, change: String(change), origin: "block" });

/** Sum of the fees of an operation's contents. */
export function feesOf(op) {
  return op.results.reduce((sum, c) => sum + BigInt(c.fee ?? 0), 0n);
}

/** The mutez balance of `address` as a bigint. */
export async function balanceOf(tezos, address) {
  return BigInt((await tezos.tz.getBalance(address)).toFixed());
}

/**
 * A fresh account of this sandbox that originates and calls the contracts, funded once with
 * 10,000 tez from `bank` (bootstrap1 signs only that transfer, so its own balance, which baking
 * moves, plays no part in the checks). Resolves to `{ sk, pkh }`.
 */
export function originatorOf(sandbox, bankKey, label) {
  let account;
  return () =>
    (account ??= (async () => {
      const key = await sandbox.testKey("ed25519", label);
      const bank = await sandbox.toolkit(bankKey.sk);
      await sandbox.fund(bank, key.pkh, 10_000_000_000);
      // Reveal in its own operation so the receipts checked later hold one content each.
      const tezos = await sandbox.toolkit(key.sk);
      const reveal = await tezos.contract.reveal({});
      await reveal.confirmation(1);
      return key;
    })());
}

/** An error a promise rejects with, or undefined if it resolves. */
export async function rejection(promise) {
  return promise.then(() => undefined, (e) => e);
}

/** A stable SHA-256 label, for fresh receivers per test. */
export function tag(text) {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/**
 * Hangzhou's `storage_size` of a freshly originated contract without big maps: code and storage
 * are stored as lazy expressions, each its Micheline binary behind a 4-byte length.
 */
export function storageSizeOf(michelCodec, code, storage) {
  const size = (expr) => BigInt(michelCodec.packDataBytes(expr).bytes.length / 2 - 1); // less the 05 tag
  return 4n + size(code) + 4n + size(storage);
}

/**
 * Wraps a test body so that an unexpected TezosOperationError fails the test with the node's
 * errors in full (Taquito's message is only the last error's id or FAILWITH value).
 */
export function explained(body) {
  return async (context) => {
    try {
      return await body(context);
    } catch (error) {
      if (error?.name === "TezosOperationError" && Array.isArray(error.errors)) {
        throw new Error(`${error.message}: ${JSON.stringify(error.errors).slice(0, 3000)}`, { cause: error });
      }
      throw error;
    }
  };
}
