/**
 * The git commit the node runs from, for `/version` and `/monitor/commit_hash` (Octez reports its
 * build's): asked of `git` in the node's own directory; `undefined` outside a git checkout or
 * without `git` (the node then says "unknown", as Octez built outside git).
 * @module
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The commit hash and its committer date (`git log`'s `%ci`, as Octez's `commit_date`). */
export interface CommitInfo {
  readonly hash: string;
  readonly date: string;
}

/** The commit of the repository this file is in, if it is a git checkout. */
export function readCommitInfo(): Promise<CommitInfo | undefined> {
  const dir = fileURLToPath(new URL("..", import.meta.url));
  return new Promise((resolve) => {
    execFile("git", ["-C", dir, "log", "-1", "--format=%H %ci"], { timeout: 5000 }, (error, stdout) => {
      const m = /^([0-9a-f]{40}) (.+)$/.exec(stdout.trim());
      resolve(error !== null || m === null ? undefined : { hash: m[1]!, date: m[2]! });
    });
  });
}
