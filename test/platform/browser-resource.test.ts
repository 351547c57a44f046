/**
 * The browser bundle's resource reader (`platform/browser/resource.ts`), against a real HTTP server
 * of the runtime running the tests: the protocol sources file served as it is reads back whole and
 * decodes to Hangzhou's record; a missing file, and the same file sent with `Content-Encoding:
 * gzip` (which `fetch` decodes before the node can), fail with an error that says what the server
 * did wrong.
 */
import { readFile } from "node:fs/promises";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readBundledResource } from "../../platform/browser/resource.ts";
import { currentServe, runtimeName } from "../../platform/current.ts";
import type { HttpServer } from "../../platform/serve.ts";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { protocolRecord } from "../../lib/encoding/protocol.ts";
import { embeddedSources } from "../../lib/protocols/sources/mod.ts";
import { HANGZHOU } from "../../lib/protocols/hangzhou/protocol.ts";
import { within } from "./process.ts";

const test = suite(`browser resource reader (${runtimeName()})`);
const FILE = `${HANGZHOU}.bin.gz`;
const gz = new Uint8Array(await readFile(new URL(`../../lib/protocols/sources/${FILE}`, import.meta.url)));
let server: HttpServer;

test.before(async () => {
  const serve = await currentServe();
  server = await serve((request) => {
    const { pathname } = new URL(request.url);
    const body = gz.slice();
    if (pathname === `/plain/${FILE}`) return new Response(body, { headers: { "content-type": "application/octet-stream" } });
    if (pathname === `/encoded/${FILE}`) return new Response(body, { headers: { "content-type": "application/octet-stream", "content-encoding": "gzip" } });
    return new Response("Not found", { status: 404 });
  }, { hostname: "127.0.0.1", port: 0 });
});

test.after(async () => {
  await within(server.close(), 10_000, "server.close()");
});

test("a sources file served as it is reads back whole, and decodes to Hangzhou's protocol record", async () => {
  const url = new URL(`/plain/${FILE}`, server.url);
  assert.equal(await readBundledResource(url), gz);
  const record = await embeddedSources(HANGZHOU, () => readBundledResource(url));
  assert.is(decodeBinary(protocolRecord, record!).components.length, 97);
});

test("a missing file fails naming its URL and status", async () => {
  const url = new URL(`/missing/${FILE}`, server.url);
  try {
    await readBundledResource(url);
    assert.unreachable("read a missing file");
  } catch (e) {
    assert.instance(e, Error);
    assert.is((e as Error).message, `${url.href}: 404 (the protocol sources are served beside the bundle)`);
  }
});

test("a file sent with Content-Encoding: gzip (decoded by fetch) fails saying how to serve it", async () => {
  const url = new URL(`/encoded/${FILE}`, server.url);
  try {
    await readBundledResource(url);
    assert.unreachable("read a decoded file");
  } catch (e) {
    assert.instance(e, Error);
    assert.is((e as Error).message, `${url.href} is not gzip: serve .gz files as they are, without Content-Encoding: gzip`);
  }
});

test.run();
