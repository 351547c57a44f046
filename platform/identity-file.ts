/**
 * The node's P2P identity on disk, `<data-dir>/identity.json`, as octez-node keeps it
 * (`src/bin_node/node_identity_file.ml`): read with every field checked, generated with a proof of
 * work while progress goes to stderr, written only where no identity file is (never overwritten).
 * Messages are Octez's, with `tezos-node` for its program name.
 *
 * @example
 * ```ts
 * const path = identityPath("./tezos-node-data");
 * const identity = await generateIdentityFile(path, 0, progressOn(process.stderr)); // refuses an existing file
 * (await readIdentityFile(path)).peerId === identity.peerId; // true
 * ```
 * @module
 */
import { lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { blake2bWasmReady } from "../lib/crypto/blake2b.ts";
import { generateIdentity, type Identity, IdentityFileError, identityToJson, parseIdentityJson, STAMP_SIZE } from "../lib/p2p/identity.ts";

/** The identity file's name in the data directory (Octez's `default_identity_file_name`). */
export const IDENTITY_FILE_NAME = "identity.json";

/** Where a data directory keeps its identity. */
export function identityPath(dataDir: string): string {
  return join(dataDir, IDENTITY_FILE_NAME);
}

/** An identity file that cannot be used; the message is meant for the user as is (one line). */
export class IdentityFileProblem extends Error {
  override name = "IdentityFileProblem";
  /** The field at fault (`peer_id`, `public_key`, `secret_key`, `proof_of_work_stamp`, …), when one is. */
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

/** Where the search of a proof of work reports (stderr: a line rewritten on a terminal). */
export interface ProgressSink {
  /** Whether the output is a terminal (then the progress line is rewritten in place). */
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Reads an identity file as octez-node does before it runs: absent, unreadable, not Octez's JSON,
 * a peer id that is not the public key's or a secret key that does not give it are each refused
 * with one line naming the file (and the field).
 * @throws {IdentityFileProblem}
 */
export async function readIdentityFile(path: string): Promise<Identity> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") {
      throw new IdentityFileProblem(`Cannot read the identity file: \`${path}\`. See \`tezos-node identity --help\` on how to generate an identity.`);
    }
    throw new IdentityFileProblem(`Cannot read the identity file \`${path}\`: ${(error as Error).message}.`);
  }
  try {
    return parseIdentityJson(text);
  } catch (error) {
    if (!(error instanceof IdentityFileError)) throw error;
    const why = error.message.replace(/^identity file:\s*/, "").replace(/^identity file /, "the file ");
    throw new IdentityFileProblem(`Invalid identity file \`${path}\`: ${why}.`, error.field);
  }
}

/**
 * Generates an identity whose stamp meets `difficulty` and writes it to `path` (creating its
 * directory), as `tezos-node identity generate`: refuses a path where a file already is, before
 * searching and again when writing. Prints on `progress` what octez-node prints on stderr
 * ("Generating a new identity... (level: 26.00)", then "Stored the new identity (id…) into
 * '<path>'."), with the attempts so far and per second while the search goes on (rewritten in
 * place on a terminal, every ten seconds otherwise) and in all at the end.
 * @throws {IdentityFileProblem} when a file is there or it cannot be written; the signal's reason when it aborts.
 */
export async function generateIdentityFile(
  path: string,
  difficulty: number,
  progress: ProgressSink,
  signal?: AbortSignal,
): Promise<Identity> {
  await refuseExisting(path);
  const identity = await searchIdentity(difficulty, progress, signal);
  try {
    await ensureDirectory(dirname(path));
    // "wx": never replaces a file that appeared meanwhile; the secret key is for the owner only.
    await writeFile(path, identityToJson(identity), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") throw overwriteRefused(path);
    throw new IdentityFileProblem(`Cannot write the identity file \`${path}\`: ${(error as Error).message}.`);
  }
  progress.write(`Stored the new identity (${identity.peerId}) into '${path}'.\n`);
  return identity;
}

/**
 * Generates an identity kept in memory only (`--memory`), with the same progress as
 * {@link generateIdentityFile}; it lasts as long as the process.
 */
export async function generateMemoryIdentity(difficulty: number, progress: ProgressSink, signal?: AbortSignal): Promise<Identity> {
  const identity = await searchIdentity(difficulty, progress, signal);
  progress.write(`Generated the identity ${identity.peerId} (in memory, for this run only).\n`);
  return identity;
}

/**
 * Creates `dir` and its missing parents. (Node's `mkdir(dir, {recursive: true})` never settles
 * for a path under `/proc`, where the system answers ENOENT for the directory whose parent exists.)
 */
async function ensureDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EEXIST") return;
    const parent = dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw error;
    await ensureDirectory(parent);
    await mkdir(dir).catch((again: { code?: string }) => {
      if (again.code !== "EEXIST") throw again;
    });
  }
}

async function refuseExisting(path: string): Promise<void> {
  try {
    await lstat(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return;
    throw new IdentityFileProblem(`Cannot read the identity file \`${path}\`: ${(error as Error).message}.`);
  }
  throw overwriteRefused(path);
}

function overwriteRefused(path: string): IdentityFileProblem {
  return new IdentityFileProblem(
    `Cannot implicitly overwrite the current identity file: '${path}'. See \`tezos-node identity --help\` on how to generate a new identity.`,
  );
}

/** How often the progress line is rewritten on a terminal, and printed anew otherwise. */
const TTY_PROGRESS_EVERY_MS = 250;
const PLAIN_PROGRESS_EVERY_MS = 10_000;

async function searchIdentity(difficulty: number, progress: ProgressSink, signal: AbortSignal | undefined): Promise<Identity> {
  await blake2bWasmReady; // the WebAssembly BLAKE2b, about five times noble's, from the first attempt
  const lead = `Generating a new identity... (level: ${difficulty.toFixed(2)}) `;
  progress.write(progress.isTTY ? lead : `${lead}\n`);
  const started = performance.now();
  let lastPrinted = started;
  const rate = (n: number, now: number) => Math.round(n / Math.max((now - started) / 1000, 1e-3));
  // The search counts up from `start`: the stamp found tells how many stamps were tried.
  const start = crypto.getRandomValues(new Uint8Array(STAMP_SIZE));
  const identity = await generateIdentity(difficulty, {
    start,
    ...(signal === undefined ? {} : { signal }),
    onProgress: (n) => {
      const now = performance.now();
      if (now - lastPrinted < (progress.isTTY ? TTY_PROGRESS_EVERY_MS : PLAIN_PROGRESS_EVERY_MS)) return;
      lastPrinted = now;
      progress.write(progress.isTTY ? `\r${lead}${n} attempts, ${rate(n, now)} per second` : `  ${n} attempts, ${rate(n, now)} per second\n`);
    },
  });
  const total = Number((bigEndian(identity.proofOfWorkStamp) - bigEndian(start) + (1n << 192n)) % (1n << 192n)) + 1;
  progress.write(`${progress.isTTY ? `\r${lead}` : "  "}found after ${total} attempts, ${rate(total, performance.now())} per second.\n`);
  return identity;
}

function bigEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}
