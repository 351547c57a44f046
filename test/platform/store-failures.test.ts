/**
 * A data directory that runs out of room, or cannot be used: the node stops with one clear line
 * and a non-zero exit, and the store keeps its last complete block for the next start. The full
 * disk is a real tmpfs, mounted for the test where the machine allows it (CI runs as root); where
 * it does not, that test is skipped with a notice.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { kill, listening, npmStart, within } from "./process.ts";

const failures = suite("data directory failures");

/** Mounts a tmpfs of `mib` MiB on a new directory; undefined where mounting is not allowed. */
function tmpfs(mib: number): { dir: string; resize(mib: number): void; unmount(): void } | undefined {
  const dir = mkdtempSync(join(tmpdir(), "tezos-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${mib}m`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    resize: (size) => execFileSync("mount", ["-o", `remount,size=${size}m`, dir], { stdio: "ignore" }),
    unmount() {
      execFileSync("umount", [dir], { stdio: "ignore" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function json(url: string, init?: RequestInit): Promise<unknown> {
  const res = await within(fetch(url, init), 60_000, url);
  return res.json();
}

failures("a full disk stops the node with one line and exit 1; with room again it starts on its last complete block", async () => {
  const fs = tmpfs(8);
  if (fs === undefined) {
    console.log("  (skipped: this machine does not allow mounting a tmpfs)");
    return;
  }
  const data = join(fs.dir, "data");
  try {
    // warnings and errors only: stderr holds the one line of the failure
    const node = npmStart(["--data-dir", data, "--rpc-addr", "127.0.0.1:0", "--bake", "manual", "--log-level", "warn"]);
    try {
      const url = await listening(node);
      // baking fills the disk: the node stops on its own
      await fetch(`${url}/sandbox/bake?count=2000`, { method: "POST" }).catch(() => undefined);
      const exit = await within(node.exited, 120_000, "the node to stop on a full disk");
      assert.is(exit.code, 1);
      assert.is(exit.stderr, `No space left on device on the data directory ${data}\n`);
    } finally {
      kill(node);
    }
    fs.resize(128);
    const again = npmStart(["--data-dir", data, "--rpc-addr", "127.0.0.1:0", "--bake", "manual"]);
    try {
      const url = await listening(again);
      const head = (await json(`${url}/chains/main/blocks/head/header`)) as { level: number };
      assert.ok(head.level > 3, `a chain was kept (level ${head.level})`);
      const baked = (await json(`${url}/sandbox/bake?count=2`, { method: "POST" })) as string[];
      assert.is(baked.length, 2);
      const after = (await json(`${url}/chains/main/blocks/head/header`)) as { level: number };
      assert.is(after.level, head.level + 2);
    } finally {
      kill(again);
      await again.exited;
    }
  } finally {
    fs.unmount();
  }
});

failures("a data directory that is a file is refused with one line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tezos-file-"));
  const file = join(dir, "not-a-directory");
  writeFileSync(file, "x");
  try {
    const node = npmStart(["--data-dir", file, "--rpc-addr", "127.0.0.1:0"]);
    const exit = await within(node.exited, 60_000, "the node to refuse its data directory");
    assert.is(exit.code, 1);
    assert.is(exit.stderr, `The data directory ${file} is not a directory\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

failures.run();
