/**
 * Streaming answers: an async iterable of values becomes a `ReadableStream` with one serialised
 * value per chunk. The stream ends when the iterable does, or when the client goes away: on the
 * stream's `cancel()` and on the request's abort signal (some runtimes only signal one of
 * them). Either way the producer is told twice: its abort signal fires and its iterator's
 * `return()` is called, so it frees what it holds.
 * @module
 */

const UTF8 = new TextEncoder();

/**
 * A byte stream of `iterable`'s values, each encoded by `encode` into one chunk.
 * `producer` is aborted when the stream stops early; `requestSignal` stops it when aborted.
 */
export function streamOf<T>(
  iterable: AsyncIterable<T>,
  encode: (value: T) => string | Uint8Array,
  producer: AbortController,
  requestSignal: AbortSignal,
): ReadableStream<Uint8Array> {
  const iterator = iterable[Symbol.asyncIterator]();
  let finished = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;

  const detach = () => requestSignal.removeEventListener("abort", onAbort);
  const stop = () => {
    if (finished) return;
    finished = true;
    detach();
    producer.abort();
    try {
      const r = iterator.return?.();
      if (r !== undefined) r.then(undefined, () => {});
    } catch {
      // a producer failing while it closes changes nothing for the client
    }
  };
  const closeQuietly = () => {
    try {
      controller?.close();
    } catch {
      // already closed or errored
    }
  };
  function onAbort() {
    stop();
    closeQuietly();
  }

  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (requestSignal.aborted) onAbort();
        else requestSignal.addEventListener("abort", onAbort, { once: true });
      },
      async pull(c) {
        if (finished) return;
        let step: IteratorResult<T>;
        try {
          step = await iterator.next();
        } catch {
          stop();
          closeQuietly();
          return;
        }
        if (finished) return;
        if (step.done === true) {
          finished = true;
          detach();
          closeQuietly();
          return;
        }
        let chunk: string | Uint8Array;
        try {
          chunk = encode(step.value);
        } catch {
          stop();
          closeQuietly();
          return;
        }
        c.enqueue(typeof chunk === "string" ? UTF8.encode(chunk) : chunk);
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 },
  );
  return stream;
}
