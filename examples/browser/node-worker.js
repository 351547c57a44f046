// The node in a Web Worker, its chain in IndexedDB (database "tezos-sandbox"). The page talks to
// it with `fetch` through worker-fetch.js. A Web Lock keeps a second tab from opening the same
// database while this one runs: that tab's node waits until this one is gone.
import { createNode, openIndexedDbStore } from "../../dist/browser/tezos-node.js";
import { serveFetch } from "./worker-fetch.js";

const DATABASE = "tezos-sandbox";

const node = new Promise((resolve, reject) => {
  navigator.locks.request(DATABASE, async () => {
    try {
      resolve(await createNode({ store: await openIndexedDbStore(DATABASE) }));
    } catch (e) {
      reject(e);
    }
    return new Promise(() => {}); // held as long as the worker lives
  });
});

serveFetch(async (request) => (await node).fetch(request));
