/**
 * The data directory's lock: a file of its own, `<dir>/lock`, created exclusively (O_EXCL) and
 * holding the owner's pid and, where the system tells it (Linux's `/proc`), the owner's start
 * time. LMDB lets several processes share one environment, which for a node would mean two
 * chains fighting over one head; this lock makes the second node refuse to start. (Octez takes a
 * `lockf` lock, which dies with its process; Node, Bun and Deno have no such call, so the lock
 * checks its owner instead.)
 *
 * A lock left by a process that no longer exists (killed, crashed) is taken over, also when the
 * killed process is still a zombie that its parent has not reaped (`/proc/<pid>/stat` state `Z`
 * or `X`), and when its pid now belongs to another process (the start time differs). A lock
 * whose owner is alive (including this very process) is refused with an Error naming the
 * directory, the pid and the lock file. Without `/proc`, a dead pid reused by an unrelated
 * process makes the lock look live: the message says which file to remove.
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
  const started = (await processStat(pid))?.started;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const file = await open(path, "wx");
      try {
        await file.writeFile(started === undefined ? `${pid}\n` : `${pid} ${started}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
      return makeLock(path, pid);
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
    }
    const owner = await readOwner(path);
    if (owner === undefined) continue; // removed meanwhile: try again
    if (owner.pid === 0 && attempt < 10) {
      // Empty: its owner may be between creating and writing it. Wait; if it stays empty, its
      // writer died in between and the lock is stale.
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (owner.pid !== 0 && (owner.pid === pid || (await isAlive(owner)))) {
      throw new Error(`Data directory ${dir} is already in use by process ${owner.pid} (lock file ${path})`);
    }
    // Stale: its process is gone. Check once more right before removing it, to narrow the
    // window in which another process could have taken it over in between.
    if ((await readOwner(path))?.text === owner.text) await unlink(path).catch(ignoreMissing);
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
      if ((await readOwner(path))?.pid === pid) await unlink(path).catch(ignoreMissing);
    },
  };
}

/** Who holds the lock file: its pid (0 for an empty or garbled file) and start time, if written. */
interface Owner {
  readonly pid: number;
  readonly started?: string;
  /** The file's text, to tell whether it changed. */
  readonly text: string;
}

async function readOwner(path: string): Promise<Owner | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if (errorCode(e) === "ENOENT") return undefined;
    throw e;
  }
  const [first, started] = text.trim().split(/\s+/);
  const pid = Number.parseInt(first ?? "", 10);
  // 0 stands for an empty or garbled file (pid 0 is never a node's).
  return { pid: Number.isInteger(pid) && pid > 0 ? pid : 0, ...(started === undefined ? {} : { started }), text };
}

/**
 * A process's state letter and start time (clock ticks after boot) from Linux's
 * `/proc/<pid>/stat`; `undefined` where there is no such file (no process, or no `/proc`).
 */
async function processStat(pid: number): Promise<{ state: string; started: string } | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (command) state ppid ...": the command may hold spaces and parentheses
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const started = fields[19]; // field 22 of the line
  return state === undefined || started === undefined ? undefined : { state, started };
}

/**
 * Whether the lock's owner still runs: its `/proc` entry says so (not a zombie, not dead, and
 * started when the lock says), or, without `/proc`, signal 0 reaches its pid.
 */
async function isAlive(owner: Owner): Promise<boolean> {
  if (owner.pid <= 0) return false;
  const stat = await processStat(owner.pid);
  if (stat !== undefined) return stat.state !== "Z" && stat.state !== "X" && (owner.started === undefined || owner.started === stat.started);
  if (await hasProc()) return false; // a `/proc` without that entry: no such process
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === "EPERM"; // exists, owned by someone else
  }
}

async function hasProc(): Promise<boolean> {
  return (await processStat(process.pid)) !== undefined;
}

function errorCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null ? (e as { code?: string }).code : undefined;
}

function ignoreMissing(e: unknown): void {
  if (errorCode(e) !== "ENOENT") throw e;
}
