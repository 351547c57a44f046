/** Assertion helper of the genesis tests. */
import * as assert from "uvu/assert";

/** Asserts that `fn` throws (or rejects with) an instance of `kind` whose message matches `message`; returns the error. */
export async function rejects<E extends Error>(fn: () => unknown, kind: new (...args: never[]) => E, message?: RegExp): Promise<E> {
  try {
    await fn();
  } catch (e) {
    assert.instance(e, kind);
    if (message !== undefined) assert.match((e as Error).message, message);
    return e as E;
  }
  return assert.unreachable(`expected a ${kind.name}`) as never;
}

/** Asserts that `fn` throws an instance of `kind` whose message matches `message`; returns the error. */
export function throwsA<E extends Error>(fn: () => unknown, kind: new (...args: never[]) => E, message?: RegExp): E {
  try {
    fn();
  } catch (e) {
    assert.instance(e, kind);
    if (message !== undefined) assert.match((e as Error).message, message);
    return e as E;
  }
  return assert.unreachable(`expected a ${kind.name}`) as never;
}
