/**
 * The data directory's lock: a file of its own, `<dir>/lock`, created exclusively (O_EXCL) and
 * holding the owner's pid. LMDB lets several processes share one environment, which for a node
 * would mean two chains fighting over one head; this lock makes the second node refuse to start.
 *
 * A lock left by a process that no longer exists (killed, crashed) is taken over. A lock whose
 * pid is alive (including this very process) is refused with an Error naming the directory, the
 * pid and the lock file. A dead pid reused by an unrelated process makes the lock look live: the
 * message says which file to remove.
 * @module
 */
import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";

/** Name of the lock file inside the data directory. */
export const LOCK_FILE_NAME = "lock";

/** A held lock on a data directory. */
export interface DataDirLock {
  /** Path of the lock file. */
  readonly path: string;
  /** Removes the lock file (only if it still holds our pid). Releasing twice is harmless. */
  release(): Promise<void>;
}

/**
 * Takes the lock of the data directory `dir` (created if missing).
 * @throws Error `Data directory <dir> is already in use by process <pid> (lock file <path>)`
 * @example
 * const lock = await acquireDataDirLock("/var/tezos");
 * try { ... } finally { await lock.release(); }
 */
export async function acquireDataDirLock(dir: string): Promise<DataDirLock> {
  if (typeof dir !== "string" || dir === "") throw new TypeError("acquireDataDirLock: dir must be a non-empty string");
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE_NAME);
  const pid = process.pid;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const file = await open(path, "wx");
      try {
        await file.writeFile(`${pid}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
      return makeLock(path, pid);
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
    }
    const owner = await readPid(path);
    if (owner === undefined) continue; // removed meanwhile: try again
    if (owner === 0 && attempt < 10) {
      // Empty: its owner may be between creating and writing it. Wait; if it stays empty, its
      // writer died in between and the lock is stale.
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (owner !== 0 && (owner === pid || isAlive(owner))) {
      throw new Error(`Data directory ${dir} is already in use by process ${owner} (lock file ${path})`);
    }
    // Stale: its process is gone. Check once more right before removing it, to narrow the
    // window in which another process could have taken it over in between.
    if ((await readPid(path)) === owner) await unlink(path).catch(ignoreMissing);
  }
  throw new Error(`Could not take the lock of data directory ${dir} (lock file ${path}): it keeps changing hands`);
}

function makeLock(path: string, pid: number): DataDirLock {
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      if ((await readPid(path)) === pid) await unlink(path).catch(ignoreMissing);
    },
  };
}

async function readPid(path: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if (errorCode(e) === "ENOENT") return undefined;
    throw e;
  }
  const pid = Number.parseInt(text.trim(), 10);
  // 0 stands for an empty or garbled file (pid 0 is never a node's).
  return Number.isInteger(pid) && pid > 0 ? pid : 0;
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === "EPERM"; // exists, owned by someone else
  }
}

function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null ? (e as { code?: string }).code : undefined;
}

function ignoreMissing(e: unknown): void {
  if (errorCode(e) !== "ENOENT") throw e;
}
