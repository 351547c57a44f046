/**
 * The size and length bounds Octez v12 puts on the distributed DB messages
 * (`src/lib_shell/distributed_db_message.ml`, `Bounded_encoding`; the values octez-node runs with,
 * which its code calls "arbitrary high bounds"), and on P2P messages (`src/lib_p2p/p2p_message.ml`).
 * @module
 */

/** Most bytes of a block header (`block_header_max_size`, 8 MiB). */
export const BLOCK_HEADER_MAX_SIZE = 8 * 1024 * 1024;
/** Most block hashes in a locator's history (`block_locator_max_length`). */
export const BLOCK_LOCATOR_MAX_LENGTH = 1000;
/** Most bytes of an operation (`operation_max_size`, 128 KiB). */
export const OPERATION_MAX_SIZE = 128 * 1024;
/** Most bytes of the operation list of an `Operations_for_blocks` (`operation_list_max_size`, 1 MiB). */
export const OPERATION_LIST_MAX_SIZE = 1024 * 1024;
/** Most validation passes a Merkle path of operation lists may address (`operation_max_pass`). */
export const OPERATION_MAX_PASS = 8;
/** Most bytes of a protocol (`protocol_max_size`, 2 MiB). */
export const PROTOCOL_MAX_SIZE = 2 * 1024 * 1024;
/** Most operations of a mempool (`mempool_max_operations`: "twice the current max size of a mempool"). */
export const MEMPOOL_MAX_OPERATIONS = 4000;
/** Most hashes (or keys) in one request (`list ~max_length:10` of the `Get_*` messages). */
export const MAX_HASHES_PER_REQUEST = 10;
/** Most points in an `Advertise` (`Variable.list ~max_length:100`). */
export const ADVERTISE_MAX_POINTS = 100;
/** Most bytes of a whole P2P message, its 4-byte size included (`check_size (100 * 1024 * 1024)`). */
export const MESSAGE_MAX_SIZE = 100 * 1024 * 1024;
