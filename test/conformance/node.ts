/**
 * The node the conformance tests query: `createNode()` with the manual baker (it still bakes to
 * level 3 at start), then 12 blocks through `POST /sandbox/bake` so that the head (level 15,
 * cycle 1) is a few levels past the end of cycle 0 (levels 1-8 with the sandbox's 8 blocks per
 * cycle). A transfer forged by `helpers/forge/operations`, signed with bootstrap1's key and
 * injected by `POST /injection/operation` goes into the last block (level 15, validation pass 3),
 * and a second one stays in the mempool (the manual baker does not bake it). Also the
 * conformance run itself: call a concrete path, validate a 200 against a schema, tell an unserved
 * path (404, and `/describe` does not know it) from a served one that answers 404. Answers are
 * validated with the Base58Check and decimal checks of octez-formats.ts on top of the schemas.
 */
import * as assert from "uvu/assert";
import { readFile } from "node:fs/promises";
import { createNode } from "../../mod.ts";
import { readCommitInfo } from "../../platform/commit.ts";
import { runtimeStats } from "../../platform/stats.ts";
import { bootstrapSecretKeys } from "../../lib/baker/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import type { TezosNode } from "../../lib/node.ts";
import { formatErrors, type OpenApi, type Schema } from "../support/openapi.ts";
import { OCTEZ_FORMATS } from "./octez-formats.ts";

const BOOTSTRAP1 = "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx";
const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Blocks baked through the RPC after the start. */
export const BAKED = 12;
/** Level of the head once baked (the start bakes to level 3). */
export const HEAD_LEVEL = 3 + BAKED;

/** A small, well-formed protocol record (Octez's `protocol` encoding) to inject. */
export const TINY_PROTOCOL = { expected_env_version: 3, components: [{ name: "Main", implementation: "let conformance = ()\n" }] };

/** One HTTP answer, its body read. */
export interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  /** The parsed body when it is JSON. */
  readonly json?: unknown;
}

/** A baked node and the means to query it. */
export class ConformanceNode {
  /** Concrete paths (and their template) that answered 404 and that `/describe` does not know. */
  readonly unserved: { readonly template: string; readonly path: string }[] = [];
  /** Concrete paths validated with a 200. */
  readonly validated: string[] = [];

  /** The node under test. */
  readonly node: TezosNode;

  private constructor(node: TezosNode) {
    this.node = node;
  }

  /** Hash of the transfer baked at level {@link HEAD_LEVEL}. */
  baked = "";
  /** Hash of the transfer left in the mempool. */
  pending = "";

  /** Starts a node, bakes {@link BAKED} blocks through `POST /sandbox/bake`, the last with a transfer, and leaves one transfer pending. */
  static async open(): Promise<ConformanceNode> {
    const commit = await readCommitInfo();
    const n = new ConformanceNode(
      await createNode({
        bake: { mode: "manual" },
        // what `npm start` gives it: the protocols' sources, the runtime's stats, the commit
        readResource: async (url) => new Uint8Array(await readFile(url)),
        stats: runtimeStats(),
        ...(commit === undefined ? {} : { commit }),
      }),
    );
    const r = await n.call(`/sandbox/bake?count=${BAKED - 1}`, "POST");
    assert.is(r.status, 200, r.text);
    n.baked = await n.transfer();
    const last = await n.call("/sandbox/bake", "POST");
    assert.is(last.status, 200, last.text);
    assert.equal(await n.json("/chains/main/blocks/head/operation_hashes/3"), [n.baked]);
    n.pending = await n.transfer();
    return n;
  }

  /** Forges (RPC), signs (bootstrap1) and injects a 1 tez transfer to bootstrap2; its operation hash. */
  async transfer(): Promise<string> {
    const head = "/chains/main/blocks/head";
    const counter = BigInt((await this.json(`${head}/context/contracts/${BOOTSTRAP1}/counter`)) as string) + 1n;
    const pending = (await this.json("/chains/main/mempool/pending_operations")) as { applied: unknown[] };
    const op = {
      branch: await this.json(`${head}/hash`),
      contents: [
        { kind: "transaction", source: BOOTSTRAP1, fee: "1000", counter: String(counter + BigInt(pending.applied.length)), gas_limit: "1520", storage_limit: "0", amount: "1000000", destination: BOOTSTRAP2 },
      ],
    };
    const forged = await this.send("POST", `${head}/helpers/forge/operations`, op);
    assert.is(forged.status, 200, forged.text);
    const hex = forged.json as string;
    const signature = await sign(bootstrapSecretKeys()[0]!, fromHex(hex), genericWatermark());
    const injected = await this.send("POST", "/injection/operation", hex + toHex(signature));
    assert.is(injected.status, 200, injected.text);
    return injected.json as string;
  }

  /** `method path` with a JSON body. */
  async send(method: string, path: string, body: unknown): Promise<Answer> {
    const res = await this.node.fetch(new Request(`http://localhost${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
    const text = await res.text();
    const contentType = res.headers.get("content-type");
    return contentType?.startsWith("application/json") && text !== "" ? { status: res.status, contentType, text, json: JSON.parse(text) } : { status: res.status, contentType, text };
  }

  /** Answers `method path`, body read and parsed when JSON. */
  async call(path: string, method = "GET"): Promise<Answer> {
    const res = await this.node.fetch(new Request(`http://localhost${path}`, { method }));
    const text = await res.text();
    const contentType = res.headers.get("content-type");
    const json = contentType?.startsWith("application/json") && text !== "" ? JSON.parse(text) : undefined;
    return json === undefined ? { status: res.status, contentType, text } : { status: res.status, contentType, text, json };
  }

  /** The parsed JSON of a GET that must answer 200. */
  async json(path: string): Promise<unknown> {
    const r = await this.call(path);
    assert.is(r.status, 200, `GET ${path}: ${r.status} ${r.text}`);
    return r.json;
  }

  /** `POST /injection/protocol` of {@link TINY_PROTOCOL}; its hash, or undefined when the node refuses it. */
  async injectProtocol(): Promise<string | undefined> {
    const r = await this.send("POST", "/injection/protocol", TINY_PROTOCOL);
    return r.status === 200 ? (r.json as string) : undefined;
  }

  /** Whether the node's `/describe` knows a service at `path` (query ignored). */
  async described(path: string): Promise<boolean> {
    return (await this.call(`/describe${path.split("?")[0]}?recurse=no`)).status === 200;
  }

  /**
   * GETs `path` and checks its answer: 200 with JSON valid against `schema` (else throws the
   * errors); 404 on a path `/describe` does not know is recorded as unserved (returns false);
   * any other answer throws.
   */
  async conforms(api: OpenApi, template: string, path: string, schema: Schema): Promise<boolean> {
    const r = await this.call(path);
    if (r.status === 404 && !(await this.described(path))) {
      this.unserved.push({ template, path });
      return false;
    }
    if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status} (the service exists: /describe knows it), 200 expected with valid arguments: ${r.text.slice(0, 300)}`);
    if (r.json === undefined) throw new Error(`GET ${path}: not a JSON answer (${r.contentType})`);
    const errors = api.validate(r.json, schema, { formats: OCTEZ_FORMATS });
    if (errors.length > 0) {
      throw new Error(`GET ${path} does not conform to ${api.name} ${template} (${errors.length} error(s)):\n${formatErrors(errors.slice(0, 40))}`);
    }
    this.validated.push(path);
    return true;
  }

  /** The first chunk of a streamed GET, parsed; fails when none arrives within `guardMs` or the status is not 200. */
  async firstChunk(path: string, during?: () => Promise<unknown>, guardMs = 10_000): Promise<{ status: number; value?: unknown }> {
    const ac = new AbortController();
    const res = await this.node.fetch(new Request(`http://localhost${path}`, { signal: ac.signal }));
    if (res.status !== 200 || res.body === null) return { status: res.status };
    const reader = res.body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no chunk from GET ${path} within ${guardMs} ms`)), guardMs);
      });
      // The first read is asked for before `during` runs, so that a lazily started stream is listening.
      let next = reader.read();
      const pending = during?.();
      let text = "";
      const decoder = new TextDecoder();
      while (!text.includes("\n")) {
        const { value, done } = await Promise.race([next, guard]);
        next = reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await pending;
      return { status: 200, value: JSON.parse(text.split("\n")[0]!) };
    } finally {
      clearTimeout(timer);
      await reader.cancel().catch(() => {});
      ac.abort();
    }
  }

  /** Prints how many concrete paths were validated and the unserved templates, grouped by area, as a notice. */
  notice(title: string): void {
    const templates = [...new Set(this.unserved.map((u) => u.template))];
    const groups = new Map<string, string[]>();
    for (const t of templates) {
      const segs = t.split("/").filter((x) => x !== "");
      const n = segs[0] === "{B}" || segs[0] === "chains" ? 2 : 1;
      const key = `/${segs.slice(0, n).join("/")}`.replace("/{B}", "{B}");
      const rest = t.slice(key.length) || "(itself)";
      groups.set(key, [...(groups.get(key) ?? []), rest]);
    }
    const lines = [...groups].map(([k, ts]) => `  ${k}: ${ts.join(", ")}`);
    console.log(
      `\nNOTICE ${title}: ${this.validated.length} concrete GET(s) validated; ${templates.length} GET path(s) not served (404, unknown to /describe)` +
        (lines.length === 0 ? "" : `:\n${lines.join("\n")}`),
    );
  }

  /** Stops the node. */
  close(): Promise<void> {
    return this.node.close();
  }
}
