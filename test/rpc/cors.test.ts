import { test } from "uvu";
import * as assert from "uvu/assert";
import { createRpcHandler } from "../../lib/rpc/mod.ts";
import { allowedHeaders, matchOrigin } from "../../lib/rpc/cors.ts";
import { makeRoot } from "./app.ts";
import { call, GENESIS_HASH } from "./fixtures.ts";

const handle = createRpcHandler(makeRoot().root, {
  cors: { origins: ["http://localhost:3000", "https://app.example"], headers: ["X-Custom"] },
  onInternalError: () => {}, // GET /crash throws on purpose
});
const star = createRpcHandler(makeRoot().root, { cors: { origins: ["*"] } });

test("an allowed Origin gets Access-Control-Allow-Origin on answers", async () => {
  const res = await call(handle, "GET", "/version", { headers: { origin: "http://localhost:3000" } });
  assert.is(res.status, 200);
  assert.is(res.headers.get("access-control-allow-origin"), "http://localhost:3000");
  const failed = await call(handle, "GET", "/crash", { headers: { origin: "https://app.example" } });
  assert.is(failed.status, 500);
  assert.is(failed.headers.get("access-control-allow-origin"), "https://app.example");
});

test("origins match exactly, by prefix followed by '/', or by '*'", async () => {
  assert.is(matchOrigin(["http://localhost:3000"], "http://localhost:3000/app"), "http://localhost:3000");
  assert.is(matchOrigin(["http://localhost:3000"], "http://localhost:30000"), undefined);
  assert.is(matchOrigin(["*", "http://a"], "http://a"), "http://a");
  const res = await call(handle, "GET", "/version", { headers: { origin: "http://localhost:30000" } });
  assert.is(res.headers.get("access-control-allow-origin"), null);
  const any = await call(star, "GET", "/version", { headers: { origin: "http://elsewhere" } });
  assert.is(any.headers.get("access-control-allow-origin"), "*");
});

test("requests are not refused by Host, whatever the allowed origins", async () => {
  const res = await handle(new Request("http://10.0.0.1:8732/version"));
  assert.is(res.status, 200);
});

test("OPTIONS pre-flight answers the asked method, the allowed headers and the origin", async () => {
  const res = await call(handle, "OPTIONS", "/version", {
    headers: { origin: "http://localhost:3000", "access-control-request-method": "GET" },
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get("access-control-allow-methods"), "GET");
  assert.is(res.headers.get("access-control-allow-headers"), "content-type, x-custom");
  assert.is(res.headers.get("access-control-allow-origin"), "http://localhost:3000");
  assert.is(await res.text(), "");
});

test("OPTIONS without a requested method lists the path's methods; content-type is always allowed, each header once", async () => {
  const res = await call(star, "OPTIONS", `/chains/main/invalid_blocks/${GENESIS_HASH}`);
  assert.is(res.status, 200);
  assert.is(res.headers.get("access-control-allow-methods"), "DELETE");
  assert.is(res.headers.get("access-control-allow-headers"), "content-type");
  assert.is(allowedHeaders(["content-type", "Authorization", "Content-Type", "X-A", "x-a"]), "authorization, content-type, x-a");
});

test("OPTIONS on an unknown path or an absent method fails like a lookup", async () => {
  assert.is((await call(handle, "OPTIONS", "/nope")).status, 404);
  const res = await call(handle, "OPTIONS", "/version", {
    headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" },
  });
  assert.is(res.status, 405);
  assert.is(res.headers.get("allow"), "GET");
});

test.run();
