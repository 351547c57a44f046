/**
 * The streamed GETs of `rpc-openapi.json` (`/monitor/...`) and of `hangzhou-mempool-openapi.json`
 * (`/chains/main/mempool/monitor_operations`): the first chunk of each, validated against the
 * file's schema, on a node baked past the end of cycle 0. `/monitor/protocols` sends a chunk only
 * when a protocol is injected: one is injected while it is read.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { formatErrors, OpenApi, type Schema } from "../support/openapi.ts";
import { ConformanceNode, HEAD_LEVEL } from "./node.ts";
import { OCTEZ_FORMATS } from "./octez-formats.ts";
import { HANGZHOU } from "./octez-schemas.ts";

const REF = new URL("../vectors/octez/", import.meta.url);
const shell = OpenApi.load(new URL("rpc-openapi.json", REF));
const mempool = OpenApi.load(new URL("hangzhou-mempool-openapi.json", REF));

const mon = suite<{ setup: Promise<void>; node: ConformanceNode }>("monitor streams");
mon.before(async (ctx) => {
  // uvu hides an error thrown by a hook: keep it, and let every test fail with it.
  ctx.setup = (async () => {
    ctx.node = await ConformanceNode.open();
  })();
  await ctx.setup.catch(() => {});
});
mon.after(async (ctx) => {
  ctx.node?.notice("monitor streams");
  await ctx.node?.close();
});

/** Reads the first chunk of `path` (running `during` meanwhile) and validates it; returns it, or undefined when unserved. */
async function firstConforms(node: ConformanceNode, api: OpenApi, template: string, path: string, schema: Schema, during?: () => Promise<unknown>): Promise<unknown> {
  const r = await node.firstChunk(path, during);
  if (r.status === 404 && !(await node.described(path))) {
    node.unserved.push({ template, path });
    return undefined;
  }
  assert.is(r.status, 200, `GET ${path}`);
  const errors = api.validate(r.value, schema, { formats: OCTEZ_FORMATS });
  if (errors.length > 0) throw new Error(`first chunk of GET ${path} does not conform to ${api.name} ${template}:\n${formatErrors(errors)}`);
  node.validated.push(path);
  return r.value;
}

mon("GET /chains/main/mempool/monitor_operations first sends the pending transfer, as hangzhou-mempool-openapi.json says", async (ctx) => {
  await ctx.setup;
  // First of the file: the other tests bake, which takes the transfer out of the mempool.
  const t = "/monitor_operations";
  const first = await firstConforms(ctx.node, mempool, `/chains/{chain_id}/mempool${t}`, "/chains/main/mempool/monitor_operations", mempool.response(t));
  if (first !== undefined) assert.equal((first as { hash: string }[]).map((o) => o.hash), [ctx.node.pending]);
});

mon("GET /monitor/heads/main first sends the head, as rpc-openapi.json says", async (ctx) => {
  await ctx.setup;
  const t = "/monitor/heads/{chain_id}";
  const head = (await firstConforms(ctx.node, shell, t, "/monitor/heads/main", shell.response(t))) as { level: number } | undefined;
  if (head !== undefined) assert.is(head.level, HEAD_LEVEL);
  await firstConforms(ctx.node, shell, t, `/monitor/heads/main?next_protocol=${HANGZHOU}`, shell.response(t));
});

mon("GET /monitor/bootstrapped first chunk follows rpc-openapi.json", async (ctx) => {
  await ctx.setup;
  await firstConforms(ctx.node, shell, "/monitor/bootstrapped", "/monitor/bootstrapped", shell.response("/monitor/bootstrapped"));
});

mon("GET /monitor/active_chains first chunk follows rpc-openapi.json", async (ctx) => {
  await ctx.setup;
  await firstConforms(ctx.node, shell, "/monitor/active_chains", "/monitor/active_chains", shell.response("/monitor/active_chains"));
});

mon("GET /monitor/valid_blocks sends the block baked meanwhile, as rpc-openapi.json says", async (ctx) => {
  await ctx.setup;
  const bake = () => ctx.node.call("/sandbox/bake", "POST");
  const b = (await firstConforms(ctx.node, shell, "/monitor/valid_blocks", "/monitor/valid_blocks", shell.response("/monitor/valid_blocks"), bake)) as
    | { level: number }
    | undefined;
  if (b !== undefined) assert.ok(b.level >= HEAD_LEVEL, String(b.level));
});

mon("GET /monitor/protocols sends the protocol injected meanwhile, as rpc-openapi.json says", async (ctx) => {
  await ctx.setup;
  let injected: string | undefined;
  const inject = async () => {
    injected = await ctx.node.injectProtocol();
  };
  const first = await firstConforms(ctx.node, shell, "/monitor/protocols", "/monitor/protocols", shell.response("/monitor/protocols"), inject);
  if (first !== undefined) assert.is(first, injected);
});

mon.run();
