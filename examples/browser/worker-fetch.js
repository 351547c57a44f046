/**
 * `fetch` across a Web Worker: the page sends each request to the worker with a MessageChannel
 * of its own, the worker answers with the status and headers, then the body chunk by chunk as the
 * node produces them (so a monitor stream reaches the page as it goes), then `done`. Cancelling
 * the body in the page, or aborting the request (its `signal`), cancels the node's stream in the
 * worker; an abort also fails the body being read.
 * Page side: `connectWorker`; worker side: `serveFetch`.
 */

/** Statuses whose answer has no body (a `Response` refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch(input, init)` served by `worker` (which calls `serveFetch`). Relative URLs are resolved
 * against `base`, an origin of your choice: requests never leave the page.
 */
export function connectWorker(worker, base) {
  // A worker whose module cannot load gets a plain `error` event (an error thrown while it runs
  // comes as an ErrorEvent, and the worker goes on): its requests, waiting or to come, fail.
  let failure;
  const waiting = new Set();
  worker.addEventListener("error", (event) => {
    if (event instanceof ErrorEvent) return;
    failure = new TypeError("the worker could not be loaded");
    for (const reject of waiting) reject(failure);
  });
  return async function nodeFetch(input, init) {
    if (failure) throw failure;
    const request = input instanceof Request ? new Request(input, init) : new Request(new URL(input, base), init);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const { port1, port2 } = new MessageChannel();
    const message = { url: request.url, method: request.method, headers: [...request.headers], body };
    worker.postMessage(message, body ? [port2, body] : [port2]);
    return new Promise((resolve, reject) => {
      waiting.add(reject);
      let body; // the answer's body stream, once the status has come
      const cancel = () => {
        port1.postMessage({ cancel: true });
        port1.close();
      };
      request.signal.addEventListener("abort", () => {
        cancel();
        reject(request.signal.reason);
        body?.error(request.signal.reason);
      });
      port1.onmessage = ({ data }) => {
        waiting.delete(reject);
        if (data.error !== undefined) return reject(new TypeError(data.error));
        let stream = null;
        if (!NULL_BODY.has(data.status)) {
          stream = new ReadableStream({
            start(controller) {
              body = controller;
              port1.onmessage = ({ data }) => {
                if (data.chunk !== undefined) controller.enqueue(data.chunk);
                else if (data.done) {
                  controller.close();
                  port1.close();
                } else if (data.error !== undefined) controller.error(new TypeError(data.error));
              };
            },
            cancel,
          });
        }
        resolve(new Response(stream, { status: data.status, statusText: data.statusText, headers: data.headers }));
      };
    });
  };
}

/** Serves the requests of `connectWorker` with `handler` (`(request) => Promise<Response>`); call it in the worker. */
export function serveFetch(handler) {
  self.onmessage = async ({ data, ports: [port] }) => {
    let reader;
    port.onmessage = ({ data }) => {
      if (data.cancel) reader?.cancel().catch(() => {});
    };
    try {
      const { url, method, headers, body } = data;
      const response = await handler(new Request(url, { method, headers, body }));
      port.postMessage({ status: response.status, statusText: response.statusText, headers: [...response.headers] });
      reader = response.body?.getReader();
      for (;;) {
        const step = await reader?.read();
        if (step === undefined || step.done) break;
        port.postMessage({ chunk: step.value });
      }
      port.postMessage({ done: true });
    } catch (e) {
      port.postMessage({ error: e instanceof Error ? e.message : String(e) });
    }
  };
}
