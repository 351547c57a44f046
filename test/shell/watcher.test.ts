import { test } from "uvu";
import * as assert from "uvu/assert";
import { Watcher } from "../../lib/shell/watcher.ts";

test("a subscriber receives its initial values, then each notification in order", async () => {
  const w = new Watcher<number>();
  const it = w.subscribe([0]);
  w.notify(1);
  w.notify(2);
  assert.equal((await it.next()).value, 0);
  assert.equal((await it.next()).value, 1);
  assert.equal((await it.next()).value, 2);
  const pending = it.next();
  w.notify(3);
  assert.equal((await pending).value, 3);
});

test("return() frees the subscriber and ends a pending next()", async () => {
  const w = new Watcher<string>();
  const it = w.subscribe();
  assert.is(w.size, 1);
  const pending = it.next();
  await it.return!();
  assert.equal(await pending, { value: undefined, done: true });
  assert.is(w.size, 0);
  w.notify("late");
  assert.equal(await it.next(), { value: undefined, done: true });
});

test("an aborted signal ends the subscription", async () => {
  const w = new Watcher<number>();
  const ac = new AbortController();
  const it = w.subscribe([], ac.signal);
  const pending = it.next();
  ac.abort();
  assert.is((await pending).done, true);
  assert.is(w.size, 0);
});

test("close() ends every subscription", async () => {
  const w = new Watcher<number>();
  const a = w.subscribe();
  const b = w.subscribe([7]);
  w.close();
  assert.is((await a.next()).done, true);
  assert.is((await b.next()).done, true);
  assert.is(w.size, 0);
});

test.run();
