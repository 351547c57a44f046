/**
 * The identifiers Octez derives by hashing: blocks, operations, operation lists, chain ids,
 * originated contracts (KT1), script expressions and seed nonces. Each function returns the raw
 * digest; `b58encode(B58.<kind>, digest)` gives the text form.
 * Sources: Octez `src/lib_crypto/{block_hash,operation_hash,operation_list_hash,
 * operation_list_list_hash,chain_id}.ml`, Hangzhou `contract_repr.ml`, `script_expr_hash.ml`,
 * `nonce_hash.ml`.
 * @module
 */
import { blake2b160, blake2b256 } from "./blake2b.ts";
import { merkleRoot } from "./merkle.ts";

function bytesArg(name: string, value: unknown, size?: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (size !== undefined && value.length !== size) {
    throw new RangeError(`${name} must be ${size} bytes, got ${value.length}`);
  }
  return value;
}

function hashListArg(name: string, value: unknown): readonly Uint8Array[] {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of 32-byte hashes`);
  value.forEach((h, i) => bytesArg(`${name}[${i}]`, h, 32));
  return value;
}

/**
 * Block hash (`B…`): BLAKE2b-256 of the whole binary block header, shell header ‖ protocol data
 * (signature included).
 * @example b58encode(B58.blockHash, blockHash(headerBytes))
 */
export function blockHash(headerBytes: Uint8Array): Uint8Array {
  return blake2b256(bytesArg("blockHash: headerBytes", headerBytes));
}

/**
 * Operation hash (`o…`): BLAKE2b-256 of the whole binary operation, branch ‖ contents ‖ signature
 * (the bytes `/injection/operation` receives).
 */
export function operationHash(operationBytes: Uint8Array): Uint8Array {
  return blake2b256(bytesArg("operationHash: operationBytes", operationBytes));
}

/**
 * Operation list hash (`Lo…`): Merkle root ({@link merkleRoot}) over the 32-byte hashes of the
 * operations of one validation pass, in block order.
 */
export function operationListHash(operationHashes: readonly Uint8Array[]): Uint8Array {
  return merkleRoot(hashListArg("operationListHash: operationHashes", operationHashes));
}

/**
 * Operation list list hash (`LLo…`, a header's `operations_hash`): Merkle root over the
 * operation list hashes of every validation pass (an Emmy* block has 4, empty ones included).
 * @example
 * operationListListHash(passes.map(operationListHash))
 */
export function operationListListHash(operationListHashes: readonly Uint8Array[]): Uint8Array {
  return merkleRoot(hashListArg("operationListListHash: operationListHashes", operationListHashes));
}

/**
 * Chain id (`Net…`) of a chain whose genesis block has hash `genesisBlockHash` (32 raw bytes): the
 * first 4 bytes of BLAKE2b-256 of that hash.
 * @example chainIdOfGenesis(b58decode(B58.blockHash, "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2")) // NetXdQprcVkpaWU
 */
export function chainIdOfGenesis(genesisBlockHash: Uint8Array): Uint8Array {
  return blake2b256(bytesArg("chainIdOfGenesis: genesisBlockHash", genesisBlockHash, 32)).slice(0, 4);
}

/**
 * Originated contract hash (`KT1…`): BLAKE2b-160 of the origination nonce, that is the hash of the
 * operation that originates it ‖ the origination index as a big-endian int32 (0 for the first
 * origination of the operation, internal originations included, then 1, 2…).
 */
export function originatedContractHash(operationHash: Uint8Array, index: number): Uint8Array {
  bytesArg("originatedContractHash: operationHash", operationHash, 32);
  if (typeof index !== "number" || !Number.isInteger(index)) {
    throw new TypeError(`originatedContractHash: index must be an integer, got ${String(index)}`);
  }
  if (index < 0 || index > 0x7fffffff) throw new RangeError(`originatedContractHash: index out of int32 range: ${index}`);
  const nonce = new Uint8Array(36);
  nonce.set(operationHash, 0);
  new DataView(nonce.buffer).setInt32(32, index, false);
  return blake2b160(nonce);
}

/**
 * Script expression hash (`expr…`): BLAKE2b-256 of `bytes` as given. For a big-map key these are
 * the PACKed key, 0x05 ‖ Micheline binary of the typed, optimized key; for a global constant, the
 * Micheline binary of the expression (no 0x05).
 */
export function scriptExprHash(bytes: Uint8Array): Uint8Array {
  return blake2b256(bytesArg("scriptExprHash: bytes", bytes));
}

/** Seed nonce hash (`nce…`): BLAKE2b-256 of the 32-byte seed nonce a baker commits to. */
export function nonceHash(nonce: Uint8Array): Uint8Array {
  return blake2b256(bytesArg("nonceHash: nonce", nonce, 32));
}
