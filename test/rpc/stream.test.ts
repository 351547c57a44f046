import { test } from "uvu";
import * as assert from "uvu/assert";
import { chainArg, createRpcHandler, Directory, multi, protocolHashArg, query, streamService } from "../../lib/rpc/mod.ts";
import { blockHashEnc, call, GENESIS_HASH, GENESIS_HASH_HEX, hex } from "./fixtures.ts";

const SECOND = "BLockGenesisGenesisGenesisGenesisGenesisb83baZgbyZe";

interface Probe {
  finallyRan: Promise<void>;
  ran: boolean;
  params?: unknown;
  signal?: AbortSignal;
}

let probe: Probe;
function newProbe(): Probe {
  let done!: () => void;
  const p: Probe = { finallyRan: new Promise<void>((r) => (done = r)), ran: false };
  (p as { done?: () => void }).done = done;
  return p;
}

async function* heads(signal: AbortSignal, p: Probe, forever: boolean): AsyncGenerator<string> {
  try {
    yield GENESIS_HASH;
    yield SECOND;
    if (forever) await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
  } finally {
    p.ran = true;
    (p as { done?: () => void }).done!();
  }
}

const root = new Directory().register(
  streamService({
    method: "GET",
    path: ["monitor", "heads", chainArg],
    query: query({ next_protocol: multi(protocolHashArg) }),
    output: blockHashEnc,
    handler: ({ params, query: q, signal }) => {
      probe.params = [params, q];
      probe.signal = signal;
      return heads(signal, probe, true);
    },
  }),
  streamService({
    method: "GET",
    path: ["monitor", "finite"],
    output: blockHashEnc,
    handler: ({ signal }) => heads(signal, probe, false),
  }),
  streamService({
    method: "GET",
    path: ["monitor", "manual"],
    output: blockHashEnc,
    handler: () => {
      const it: AsyncIterator<string> & AsyncIterable<string> = {
        next: async () => ({ value: GENESIS_HASH, done: false }),
        return: async () => {
          probe.ran = true;
          (probe as { done?: () => void }).done!();
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return it;
    },
  }),
  streamService({
    method: "GET",
    path: ["monitor", "broken"],
    output: blockHashEnc,
    handler: () => {
      throw new Error("no such chain");
    },
  }),
);
const handle = createRpcHandler(root, { onInternalError: () => {} });
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

test("a stream sends one minified JSON value and a newline per chunk", async () => {
  probe = newProbe();
  const res = await call(handle, "GET", "/monitor/heads/main");
  assert.is(res.status, 200);
  assert.is(res.headers.get("content-type"), "application/json");
  const reader = res.body!.getReader();
  assert.is(text((await reader.read()).value), `"${GENESIS_HASH}"\n`);
  assert.is(text((await reader.read()).value), `"${SECOND}"\n`);
  assert.is(probe.ran, false);
  await reader.cancel();
  await probe.finallyRan;
  assert.is(probe.ran, true);
});

test("the handler gets its typed params and multi query", async () => {
  probe = newProbe();
  const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
  const res = await call(handle, "GET", `/monitor/heads/main?next_protocol=${HANGZHOU}&next_protocol=${HANGZHOU}`);
  assert.equal(probe.params, [[{ kind: "main" }], { next_protocol: [HANGZHOU, HANGZHOU] }]);
  assert.is(probe.signal!.aborted, false);
  // Cancelled before the first value was pulled: the generator never started (nothing to free),
  // and the producer's signal tells it to stop.
  await res.body!.cancel();
  assert.is(probe.signal!.aborted, true);
});

test("aborting the request stops the producer while it waits", async () => {
  probe = newProbe();
  const ac = new AbortController();
  const res = await call(handle, "GET", "/monitor/heads/main", { signal: ac.signal });
  const reader = res.body!.getReader();
  await reader.read();
  await reader.read();
  const pending = reader.read();
  ac.abort();
  await probe.finallyRan;
  assert.is(probe.ran, true);
  const last = await pending.then(
    (r) => r.done,
    () => true,
  );
  assert.is(last, true);
});

test("cancelling the stream calls the iterator's return()", async () => {
  probe = newProbe();
  const res = await call(handle, "GET", "/monitor/manual");
  const reader = res.body!.getReader();
  assert.is(text((await reader.read()).value), `"${GENESIS_HASH}"\n`);
  await reader.cancel();
  await probe.finallyRan;
  assert.is(probe.ran, true);
});

test("a finite stream ends when its iterable does", async () => {
  probe = newProbe();
  const res = await call(handle, "GET", "/monitor/finite");
  assert.is(await res.text(), `"${GENESIS_HASH}"\n"${SECOND}"\n`);
  assert.is(probe.ran, true);
});

test("a binary stream sends each value behind its length", async () => {
  probe = newProbe();
  const res = await call(handle, "GET", "/monitor/finite", { headers: { accept: "application/octet-stream" } });
  const reader = res.body!.getReader();
  assert.is(hex((await reader.read()).value!), "00000020" + GENESIS_HASH_HEX);
  await reader.cancel();
  await probe.finallyRan;
});

test("a stream handler that fails before streaming answers 500", async () => {
  const res = await call(handle, "GET", "/monitor/broken");
  assert.is(res.status, 500);
  // a plain exception: the generic failure (a Tezos error would be answered as it is)
  assert.is(await res.text(), '[{"kind":"temporary","id":"failure","msg":"Internal error"}]\n');
});

test.run();
