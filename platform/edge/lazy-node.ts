/**
 * A node made on its first request: workerd allows no I/O, timers or random numbers at a module's
 * top level, so a worker cannot make its node when it loads. Requests that arrive while the node
 * is being made wait for that same making; a making that fails answers its waiting requests with
 * Octez's `failure` and is tried again at the next request.
 * @module
 */
import type { TezosNode } from "../../lib/node.ts";
import { exceptionMessage, failureItem } from "../../lib/errors/mod.ts";
import { errorBody, JSON_MEDIA } from "../../lib/rpc/media.ts";

/** Serves a request with the node, made at the first one. */
export type LazyNodeHandler = (request: Request) => Promise<Response>;

/**
 * The handler of the node `create` makes, called once for all the requests it serves (again only
 * after a failure).
 * @example
 * const handle = lazyNode(() => createNode({ bake: { mode: "manual" } }));
 * await handle(new Request("http://node/chains/main/blocks/head/hash"));
 */
export function lazyNode(create: () => Promise<TezosNode>): LazyNodeHandler {
  let node: Promise<TezosNode> | undefined;
  return async (request) => {
    const making = (node ??= create());
    let made: TezosNode;
    try {
      made = await making;
    } catch (e) {
      if (node === making) node = undefined;
      return failureAnswer(`The node could not start: ${exceptionMessage(e)}`);
    }
    return made.fetch(request);
  };
}

/** A 500 whose body is Octez's error trace of one `failure` with `msg`. */
export function failureAnswer(msg: string): Response {
  return new Response(errorBody(JSON_MEDIA, [failureItem(msg)]) as string, { status: 500, headers: { "content-type": JSON_MEDIA } });
}
