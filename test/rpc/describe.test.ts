import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Json } from "../../lib/encoding/codec.ts";
import {
  boolArg,
  chainArg,
  createRpcHandler,
  Directory,
  intArg,
  makeArg,
  optional,
  query,
  service,
  single,
  streamService,
} from "../../lib/rpc/mod.ts";
import { makeRoot } from "./app.ts";
import { call, emptyEnc, unitEnc } from "./fixtures.ts";

type Obj = { [k: string]: Json };
const capture = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/hangzhou-describe-chains-main-mempool-recurse.json", import.meta.url), "utf8"),
) as Obj;
const captured = (name: string): Obj =>
  ((((capture["static"] as Obj)["subdirs"] as Obj)["suffixes"] as Obj[]).find((e) => e["name"] === name)!["tree"] as Obj)["static"] as Obj;

const peerIdArg = makeArg({ name: "peer_id", descr: "A cryptographic node identity (Base58Check-encoded)", parse: (t) => t, print: (t: string) => t });

// A mempool directory shaped like Octez's (a dynamic subtree below /chains/<chain>/mempool).
const mempool = new Directory().register(
  service({
    method: "POST",
    path: ["unban_all_operations"],
    description: "Clear the set of banned operations.",
    input: emptyEnc,
    output: unitEnc,
    handler: () => undefined,
  }),
  service({
    method: "GET",
    path: ["pending_operations"],
    query: query({ version: single(intArg, 0) }),
    output: unitEnc,
    handler: () => undefined,
  }),
  service({
    method: "POST",
    path: ["request_operations"],
    query: query({ peer_id: optional(peerIdArg) }),
    input: emptyEnc,
    output: unitEnc,
    handler: () => undefined,
  }),
  streamService({
    method: "GET",
    path: ["monitor_operations"],
    query: query({
      applied: single(boolArg, true, "Include applied operations (set by default)"),
      refused: single(boolArg, false, "Include refused operations"),
      outdated: single(boolArg, false, "Include outdated operations"),
      branch_refused: single(boolArg, false, "Include branch refused operations"),
      branch_delayed: single(boolArg, true, "Include branch delayed operations (set by default)"),
    }),
    output: unitEnc,
    handler: async function* () {},
  }),
);
const root = new Directory();
root.dynamic(["chains", chainArg, "mempool"], ([chain]) => (chain.kind === "main" ? mempool : undefined), "mempool of a chain");
const handle = createRpcHandler(root);

async function describe(path: string): Promise<{ status: number; body: Obj }> {
  const res = await call(handle, "GET", path);
  const text = await res.text();
  return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Obj) };
}

test("describe of a mempool service matches the Hangzhou capture, with erro beside error", async () => {
  const { status, body } = await describe("/describe/chains/main/mempool?recurse=yes");
  assert.is(status, 200);
  const suffixes = ((body["static"] as Obj)["subdirs"] as Obj)["suffixes"] as Obj[];
  assert.equal(
    suffixes.map((s) => s["name"]),
    ["monitor_operations", "pending_operations", "request_operations", "unban_all_operations"],
  );
  const mine = ((suffixes.find((s) => s["name"] === "unban_all_operations")!["tree"] as Obj)["static"] as Obj)["post_service"] as Obj;
  assert.equal(mine["erro"], mine["error"]);
  const { erro: _erro, ...withoutErro } = mine;
  assert.equal(withoutErro, captured("unban_all_operations")["post_service"]);
});

test("query descriptions match the capture for single, optional and described fields", async () => {
  const { body } = await describe("/describe/chains/main/mempool?recurse=yes");
  const suffixes = ((body["static"] as Obj)["subdirs"] as Obj)["suffixes"] as Obj[];
  for (const [name, meth] of [
    ["pending_operations", "get_service"],
    ["request_operations", "post_service"],
    ["monitor_operations", "get_service"],
  ] as const) {
    const mine = ((suffixes.find((s) => s["name"] === name)!["tree"] as Obj)["static"] as Obj)[meth] as Obj;
    assert.equal(mine["query"], (captured(name)[meth] as Obj)["query"], name);
    assert.equal(mine["path"], [name]);
  }
});

test("without recurse, a node with no service is 404; with one, no subdirs", async () => {
  assert.is((await describe("/describe/chains/main/mempool")).status, 404);
  const { status, body } = await describe("/describe/chains/main/mempool/pending_operations");
  assert.is(status, 200);
  assert.equal(Object.keys(body["static"] as Obj), ["get_service"]);
});

test("describe resolves the dynamic subtree only when the path gives its arguments", async () => {
  const { body } = await describe("/describe?recurse=yes");
  const chains = ((body["static"] as Obj)["subdirs"] as Obj)["suffixes"] as Obj[];
  assert.equal(chains.map((c) => c["name"]), ["chains", "describe", "errors"]);
  const tree = chains[0]!["tree"] as Obj;
  assert.equal(tree, {
    static: {
      subdirs: {
        dynamic_dispatch: {
          arg: {
            id: "single",
            name: "chain_id",
            descr:
              "A chain identifier. This is either a chain hash in Base58Check notation or a one the predefined aliases: 'main', 'test'.",
          },
          tree: { static: { subdirs: { suffixes: [{ name: "mempool", tree: { dynamic: "mempool of a chain" } }] } } },
        },
      },
    },
  });
  assert.is((await describe("/describe/chains/test/mempool?recurse=yes")).status, 404);
  assert.is((await describe("/describe/chains/Main/mempool?recurse=yes")).status, 404);
  assert.is((await describe("/describe/nothing")).status, 404);
});

test("the describe service describes itself with a multiple argument and a recurse query", async () => {
  const { body } = await describe("/describe/describe");
  const s = (body["static"] as Obj)["get_service"] as Obj;
  assert.equal(s["path"], ["describe", { id: "multiple", name: "string" }]);
  assert.is(s["description"], "RPCs documentation and input/output schema");
  assert.equal(s["query"], [{ name: "recurse", kind: { single: { id: "single", name: "bool" } } }]);
  assert.equal(s["error"], captured("unban_all_operations")["post_service"] && (captured("unban_all_operations")["post_service"] as Obj)["error"]);
});

test("paths with arguments are described with their types", async () => {
  const h = createRpcHandler(makeRoot().root);
  const res = await call(h, "GET", "/describe/chains/main/blocks?recurse=yes");
  const body = (await res.json()) as Obj;
  const get = (body["static"] as Obj)["get_service"] as Obj;
  assert.equal(get["path"], ["chains", { id: "single", name: "chain_id", descr: (get["path"] as Obj[])[1]!["descr"]! }, "blocks"]);
  assert.equal((get["query"] as Obj[]).map((q) => [q["name"], Object.keys(q["kind"] as Obj)[0]]), [
    ["length", "optional"],
    ["head", "multi"],
  ]);
  assert.equal(((body["static"] as Obj)["subdirs"] as Obj)["dynamic_dispatch"], {
    arg: {
      id: "single",
      name: "block_id",
      descr: (((body["static"] as Obj)["subdirs"] as Obj)["dynamic_dispatch"] as Obj)["arg"] && ((((body["static"] as Obj)["subdirs"] as Obj)["dynamic_dispatch"] as Obj)["arg"] as Obj)["descr"]!,
    },
    tree: { dynamic: null },
  });
  const hash = await (await call(h, "GET", "/describe/chains/main/blocks/head/hash")).json() as Obj;
  assert.equal(((hash["static"] as Obj)["get_service"] as Obj)["path"], ["hash"]);
});

test.run();
