import { test } from "uvu";
import * as assert from "uvu/assert";
import { createRpcHandler, Directory, service } from "../../lib/rpc/mod.ts";
import { nodeRpcHandler } from "../../lib/rpc/services/mod.ts";
import { makeRoot, testRegistry } from "./app.ts";
import { call, GENESIS_HASH, GENESIS_HASH_HEX, hex, SANDBOX_CHAIN_ID, stringEnc, unhex } from "./fixtures.ts";

const { root, builds } = makeRoot();
/** The exceptions the handler was told of (not Tezos errors: bugs), instead of stderr. */
const internal: unknown[] = [];
const handle = nodeRpcHandler(root, { errors: testRegistry, onInternalError: (e) => internal.push(e) });

const KT1 = "KT1PWx2mnDueood7fEmfbBDKx1D9BAnnXitn";
const CTX_PREFIX = "chains/main/blocks/head~x";

// [method, path, init, status, body, content-type]
type Row = [string, string, { headers?: Record<string, string>; body?: string | Uint8Array }, number, string, string | null];
const malformed: Row[] = [
  ["GET", "/nope", {}, 404, "", null],
  ["GET", "/chains/main/blocks/head/nothing", {}, 404, "", null],
  ["GET", "/chains/main/blocks/999/hash", {}, 404, "", null],
  ["GET", `/chains/main/blocks/head/context/contracts/${KT1}/counter`, {}, 404, "", "application/json"],
  ["GET", "/missing", {}, 404, "", "application/json"],
  [
    "GET",
    "/chains/main/blocks/head~x/hash",
    {},
    400,
    `Failed to parsed an argument in path. After "${CTX_PREFIX}", the value "Cannot parse block identifier: head~x" is not acceptable for type "block_id"`,
    "text/plain",
  ],
  [
    "GET",
    "/chains/Main/chain_id",
    {},
    400,
    'Failed to parsed an argument in path. After "chains/Main", the value "Cannot parse chain identifier." is not acceptable for type "chain_id"',
    "text/plain",
  ],
  [
    "DELETE",
    "/chains/main/invalid_blocks/BLock",
    {},
    400,
    'Failed to parsed an argument in path. After "chains/main/invalid_blocks/BLock", the value "failed to decode Base58Check-encoded data (block_hash): "BLock"" is not acceptable for type "block_hash"',
    "text/plain",
  ],
  ["PUT", "/version", { body: "{}" }, 405, "", null],
  ["DELETE", "/version", {}, 405, "", null],
  ["HEAD", "/version", {}, 501, "", null],
  ["PROPFIND", "/version", {}, 501, "", null],
  ["GET", "/version", { headers: { accept: "text/html" } }, 406, "application/json, application/octet-stream", null],
  ["GET", "/version", { headers: { accept: "application/bson" } }, 406, "application/json, application/octet-stream", null],
  ["POST", "/injection/operation", { headers: { "content-type": "text/plain" }, body: '"00"' }, 415, "", null],
  ["GET", "/version", { headers: { "content-type": "application/xml" } }, 415, "", null],
  [
    "GET",
    "/chains/main/blocks?length=x",
    {},
    400,
    "Failed to parse the query string: Failed to parse argument 'length' (\"x\"): Cannot parse integer value",
    "text/plain",
  ],
  [
    "GET",
    "/chains/main/blocks?length=1&length=2",
    {},
    400,
    "Failed to parse the query string: Duplicate argument 'length' in query string.",
    "text/plain",
  ],
  [
    "GET",
    "/chains/main/blocks?head=BLx",
    {},
    400,
    'Failed to parse the query string: Failed to parse argument \'head\' ("BLx"): failed to decode Base58Check-encoded data (block_hash): "BLx"',
    "text/plain",
  ],
  [
    "POST",
    "/injection/operation?async=maybe",
    { body: '"00"' },
    400,
    "Failed to parse the query string: Failed to parse argument 'async' (\"maybe\"): Cannot parse boolean value",
    "text/plain",
  ],
  [
    "POST",
    "/injection/operation?async&async",
    { body: '"00"' },
    400,
    "Failed to parse the query string: Duplicate argument 'async' in query string.",
    "text/plain",
  ],
  ["POST", "/injection/operation", { body: "{" }, 400, "Failed to parse the request body: invalid JSON text", "text/plain"],
  ["POST", "/injection/operation", { body: "" }, 400, "Failed to parse the request body: invalid JSON text", "text/plain"],
  ["POST", "/injection/operation", { body: "42" }, 400, "Failed to parse the request body: expected a string", "text/plain"],
  ["POST", "/echo_pair", { body: '{"a":1,"b":2}' }, 400, "Failed to parse the request body: Expected a string (at b)", "text/plain"],
  [
    "POST",
    "/echo_pair",
    { headers: { "content-type": "application/octet-stream" }, body: new Uint8Array([0, 0]) },
    400,
    "Failed to parse the request body: Failed to parse binary data: Not enough data: need 4 bytes, 2 left.",
    "text/plain",
  ],
  [
    "POST",
    "/echo_pair",
    { headers: { "content-type": "application/octet-stream" }, body: new Uint8Array([0, 0, 0, 2, 5, 6]) },
    400,
    "Failed to parse the request body: Failed to parse binary data: 1 unexpected trailing bytes.",
    "text/plain",
  ],
  [
    "GET",
    "/fail",
    {},
    500,
    '[{"kind":"temporary","id":"proto.011-PtHangz2.delegate.not_registered","pkh":"tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx"}]\n',
    "application/json",
  ],
  // a plain exception (a bug): the generic failure, nothing of its text
  ["GET", "/crash", {}, 500, '[{"kind":"temporary","id":"failure","msg":"Internal error"}]\n', "application/json"],
  ["GET", "/bad_output", {}, 500, '[{"kind":"temporary","id":"failure","msg":"Internal error"}]\n', "application/json"],
  [
    "GET",
    "/chains/main/blocks/caboose/hash",
    {},
    500,
    '[{"kind":"temporary","id":"proto.011-PtHangz2.delegate.not_registered","pkh":"tz1caboose"}]\n',
    "application/json",
  ],
];

for (const [method, path, init, status, body, type] of malformed) {
  test(`${method} ${path}${init.headers ? " " + JSON.stringify(init.headers) : ""} answers ${status}`, async () => {
    const res = await call(handle, method, path, init);
    const text = await res.text();
    assert.is(res.status, status);
    assert.is(text, body);
    assert.is(res.headers.get("content-type"), type);
  });
}

test("405 lists the allowed methods in Allow", async () => {
  const res = await call(handle, "PUT", "/version", { body: "{}" });
  assert.is(res.headers.get("allow"), "GET");
  const res2 = await call(handle, "GET", `/chains/main/invalid_blocks/${GENESIS_HASH}`);
  assert.is(res2.status, 405);
  assert.is(res2.headers.get("allow"), "DELETE");
});

test("JSON answers are minified with a trailing newline", async () => {
  const res = await call(handle, "GET", "/version");
  assert.is(res.status, 200);
  assert.is(res.headers.get("content-type"), "application/json");
  assert.is(await res.text(), '"v12"\n');
  const res2 = await call(handle, "GET", `/chains/main/blocks?length=2&head=${GENESIS_HASH}&head=${GENESIS_HASH}&unknown=1`);
  assert.is(await res2.text(), `{"length":2,"head":["${GENESIS_HASH}","${GENESIS_HASH}"]}\n`);
});

test("path arguments reach the handler typed, through the dynamic block subtree", async () => {
  assert.is(await (await call(handle, "GET", `/chains/${SANDBOX_CHAIN_ID}/chain_id`)).text(), `"${SANDBOX_CHAIN_ID}"\n`);
  assert.is(await (await call(handle, "GET", `/chains/main/blocks/${GENESIS_HASH}~2/hash`)).text(), `"${GENESIS_HASH}"\n`);
  assert.is(await (await call(handle, "GET", "/chains/main/blocks/head/context/contracts/tz1abc/counter")).text(), '"7"\n');
  assert.is(await (await call(handle, "GET", "//chains//main/blocks/head/hash/")).status, 200);
  assert.is(await (await call(handle, "GET", "/chains/main/blocks/head%7E1/hash")).status, 200);
});

test("a dynamic subtree is built from the arguments parsed so far, once per request", async () => {
  const before = builds.n;
  await call(handle, "GET", "/chains/main/blocks/head/hash");
  assert.is(builds.n, before + 1);
});

test("queries: flags, optional and unknown parameters", async () => {
  const ok = async (q: string) => (await call(handle, "POST", `/injection/operation${q}`, { body: '"00ff"' })).json();
  assert.equal(await ok(""), { body: "00ff", async: false, chain: null });
  assert.equal(await ok("?async"), { body: "00ff", async: true, chain: null });
  assert.equal(await ok("?async="), { body: "00ff", async: true, chain: null });
  assert.equal(await ok("?async=no&chain=main&other=x"), { body: "00ff", async: false, chain: "main" });
  assert.equal(await ok("?async=false"), { body: "00ff", async: false, chain: null });
  assert.equal(await ok(`?chain=${SANDBOX_CHAIN_ID}`), { body: "00ff", async: false, chain: SANDBOX_CHAIN_ID });
});

test("a request body is JSON by default and with application/json; charset", async () => {
  const res = await call(handle, "POST", "/echo_pair", { body: '{"a":3}', headers: { "content-type": "application/json; charset=utf-8" } });
  assert.is(await res.text(), '{"a":3}\n');
});

test("binary answers carry a 4-byte length before the data-encoding bytes", async () => {
  const res = await call(handle, "GET", "/chains/main/blocks/head/hash", { headers: { accept: "application/octet-stream" } });
  assert.is(res.status, 200);
  assert.is(res.headers.get("content-type"), "application/octet-stream");
  assert.is(hex(new Uint8Array(await res.arrayBuffer())), "00000020" + GENESIS_HASH_HEX);
});

test("a binary request body is read behind its 4-byte length", async () => {
  const res = await call(handle, "POST", "/echo_pair", {
    headers: { "content-type": "application/octet-stream" },
    body: unhex("0000000105"),
  });
  assert.is(await res.text(), '{"a":5}\n');
});

test("Accept is negotiated by q-value", async () => {
  const type = async (accept: string) =>
    (await call(handle, "GET", "/version", { headers: { accept } })).headers.get("content-type");
  assert.is(await type("application/json;q=0.5, application/octet-stream"), "application/octet-stream");
  assert.is(await type("application/octet-stream;q=0.5, application/json"), "application/json");
  assert.is(await type("*/*;q=0.1, application/octet-stream;q=0.9"), "application/octet-stream");
  assert.is(await type("application/*"), "application/json");
  assert.is(await type("text/html, */*;q=0.8"), "application/json");
});

test("an exception that is not a Tezos error answers the generic failure; the handler's onInternalError gets it", async () => {
  internal.length = 0;
  const res = await call(handle, "GET", "/crash");
  assert.is(await res.text(), '[{"kind":"temporary","id":"failure","msg":"Internal error"}]\n');
  assert.is(internal.length, 1);
  assert.is((internal[0] as Error).message, "disk on fire");
  const output = await call(handle, "GET", "/bad_output");
  assert.not.match(await output.text(), /TypeError|argument/);
  assert.instance(internal[1], TypeError);
});

test("the default onInternalError prints one line per distinct exception, never a stack trace", async () => {
  // an exception of its own: the default logger prints each distinct one once per process
  const message = `disk on fire ${Math.random()}`;
  const dir = new Directory().register(
    service({
      method: "GET",
      path: ["burn"],
      output: stringEnc,
      handler: () => {
        throw new Error(message);
      },
    }),
  );
  const quiet = createRpcHandler(dir);
  const lines: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    for (let i = 0; i < 3; i++) assert.is((await call(quiet, "GET", "/burn")).status, 500);
  } finally {
    console.error = error;
  }
  assert.is(lines.length, 1, lines.join("\n"));
  assert.match(lines[0]!, new RegExp(`^RPC internal error \\(GET /burn\\): ${message.replace(".", "\\.")} at \\S`));
  assert.not.match(lines[0]!, /\n/);
});

test("a failed call in binary carries the JSON error text behind two lengths", async () => {
  const res = await call(handle, "GET", "/fail", { headers: { accept: "application/octet-stream" } });
  assert.is(res.status, 500);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = '[{"kind":"temporary","id":"proto.011-PtHangz2.delegate.not_registered","pkh":"tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx"}]';
  const view = new DataView(bytes.buffer);
  assert.is(view.getUint32(0), text.length + 4);
  assert.is(view.getUint32(4), text.length);
  assert.is(new TextDecoder().decode(bytes.subarray(8)), text);
});

test("GET /errors lists the registered errors", async () => {
  const res = await call(handle, "GET", "/errors");
  assert.is(res.status, 200);
  const body = (await res.json()) as { oneOf: { properties: { id: { enum: string[] } } }[] };
  assert.equal(
    body.oneOf.map((c) => c.properties.id.enum[0]),
    ["proto.011-PtHangz2.delegate.not_registered"],
  );
});

test("old paths of the early layout are served as their current paths", async () => {
  const r1 = await call(handle, "POST", "/blocks/head/hash", { body: "{}" });
  assert.is(r1.status, 200);
  assert.is(await r1.text(), `"${GENESIS_HASH}"\n`);
  const r2 = await call(handle, "GET", `/blocks/head/proto/context/contracts/tz1x/counter`);
  assert.is(r2.status, 404);
  const r3 = await call(handle, "POST", `/invalid_blocks/${GENESIS_HASH}/unmark`);
  assert.is(r3.status, 200);
  assert.is(await r3.text(), "{}\n");
});

test.run();
