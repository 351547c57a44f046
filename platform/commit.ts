/**
 * The git commit the node runs from, for `/version` and `/monitor/commit_hash` (Octez reports its
 * build's). A build (`npm run build`) records it in `dist/tezos-node-commit.json`, which an
 * installed package carries; from the sources it is asked of `git` in the node's own directory.
 * `undefined` without either, and in an installed package without the record (the git checkout
 * around `node_modules` is its user's, not the node's): the node then says "unknown", as Octez
 * built outside git.
 * @module
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The commit hash and its committer date (`git log`'s `%ci`, as Octez's `commit_date`). */
export interface CommitInfo {
  readonly hash: string;
  readonly date: string;
}

/** Name of the build's record of its commit, at the top of `dist/`. */
export const COMMIT_RECORD = "tezos-node-commit.json";

/** The commit of the build this file is part of, or of the git checkout it is in. */
export async function readCommitInfo(): Promise<CommitInfo | undefined> {
  const recorded = await readRecord(new URL(`../${COMMIT_RECORD}`, import.meta.url));
  if (recorded !== undefined) return recorded;
  const dir = fileURLToPath(new URL("..", import.meta.url));
  if (dir.split(sep).includes("node_modules")) return undefined;
  return gitCommit(dir);
}

/** The commit of the git checkout holding `dir`, as `git log` gives it. */
export function gitCommit(dir: string): Promise<CommitInfo | undefined> {
  return new Promise((resolve) => {
    execFile("git", ["-C", dir, "log", "-1", "--format=%H %ci"], { timeout: 5000 }, (error, stdout) => {
      const m = /^([0-9a-f]{40}) (.+)$/.exec(stdout.trim());
      resolve(error !== null || m === null ? undefined : { hash: m[1]!, date: m[2]! });
    });
  });
}

/** A build's record, when there is one and it holds a commit. */
async function readRecord(url: URL): Promise<CommitInfo | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(url, "utf8"));
  } catch {
    return undefined;
  }
  const { hash, date } = (value ?? {}) as { hash?: unknown; date?: unknown };
  return typeof hash === "string" && /^[0-9a-f]{40}$/.test(hash) && typeof date === "string" ? { hash, date } : undefined;
}
