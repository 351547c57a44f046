/**
 * Hangzhou's costs of context storage accesses (Octez `Storage_costs`), in milligas.
 * @module
 */
import { sAdd, sMul } from "./arith.ts";

/** `Storage_costs.read_access ~path_length ~read_bytes`: 200000 + 5000 per path element + 2 per byte read. */
export function readAccess(pathLength: number, readBytes: number): number {
  return sAdd(200_000 + 5_000 * pathLength, sMul(2, readBytes));
}

/** `Storage_costs.write_access ~written_bytes`: 200000 + 4 per byte written. */
export function writeAccess(writtenBytes: number): number {
  return sAdd(200_000, sMul(4, writtenBytes));
}
