// The page of index.html: the node runs in a Web Worker (node-worker.js); the page shows its head
// from the /monitor/heads/main stream, bakes on the button, and sends a transfer with Taquito
// through the same worker. `tezosNode.fetch` in the console talks to the node too.
import { HttpBackend, HttpResponseError, HttpTimeoutError, InMemorySigner, PollingSubscribeProvider, RpcClient, TezosToolkit } from "./build/taquito.js";
import { jsonValues } from "./json-stream.js";
import { connectWorker } from "./worker-fetch.js";

const BOOTSTRAP1_KEY = "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh";
const BOOTSTRAP2 = "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN";
/** The node's origin for Taquito and relative URLs: requests to it never leave the page. */
const NODE = "http://node.invalid";

const worker = new Worker(new URL("./node-worker.js", import.meta.url), { type: "module" });
const nodeFetch = connectWorker(worker, NODE);
globalThis.tezosNode = { fetch: nodeFetch };

/** Taquito's HTTP backend, posting its requests to the worker instead of the network. */
class WorkerHttpBackend extends HttpBackend {
  async createRequest({ url, method = "GET", timeout = this.timeout, query, headers = {}, json = true }, data) {
    let response, text;
    try {
      response = await nodeFetch(url + this.serialize(query), {
        method,
        headers: { "Content-Type": "application/json", ...headers },
        body: data === undefined ? undefined : JSON.stringify(data),
        signal: AbortSignal.timeout(timeout),
      });
      text = await response.text();
    } catch (e) {
      throw e?.name === "TimeoutError" ? new HttpTimeoutError(timeout, url) : e;
    }
    if (response.status >= 400) {
      throw new HttpResponseError(`Http error response: (${response.status}) ${text}`, response.status, response.statusText, text, url);
    }
    return json ? JSON.parse(text) : text;
  }
}

const tezos = new TezosToolkit(new RpcClient(NODE, "main", new WorkerHttpBackend()));
tezos.setProvider({ signer: new InMemorySigner(BOOTSTRAP1_KEY) });
tezos.setStreamProvider(tezos.getFactory(PollingSubscribeProvider)({ pollingIntervalMilliseconds: 500 }));

const $ = (id) => document.getElementById(id);

function fail(element, error) {
  element.textContent = error instanceof HttpResponseError ? error.body : String(error.message ?? error);
  element.classList.add("error");
}

async function showBalance(block) {
  const mutez = await tezos.rpc.getBalance(BOOTSTRAP2, { block });
  $("balance").textContent = mutez.shiftedBy(-6).toFixed();
}

/** Follows the node's heads: the level, the hash and bootstrap2's balance at each new head. */
async function followHeads() {
  const response = await nodeFetch("/monitor/heads/main");
  $("status").textContent = "The node runs in a Web Worker; its chain is kept in IndexedDB.";
  $("bake").disabled = $("send").disabled = false;
  for await (const head of jsonValues(response.body)) {
    $("level").textContent = head.level;
    $("head").textContent = head.hash;
    await showBalance(head.hash);
  }
}

$("bake").addEventListener("click", async () => {
  $("baked").classList.remove("error");
  try {
    const response = await nodeFetch("/sandbox/bake", { method: "POST" });
    const answer = await response.json();
    if (!response.ok) throw new Error(JSON.stringify(answer));
    $("baked").textContent = `baked ${answer.join(", ")}`;
  } catch (e) {
    fail($("baked"), e);
  }
});

$("transfer").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("send").disabled = true;
  $("op-hash").textContent = "–";
  $("op-status").textContent = "forging and signing…";
  $("op-status").classList.remove("error");
  try {
    const op = await tezos.contract.transfer({ to: BOOTSTRAP2, amount: Number($("amount").value) });
    $("op-hash").textContent = op.hash;
    $("op-status").textContent = "injected, waiting for a block…";
    const level = await op.confirmation(1);
    $("op-status").textContent = `confirmed at level ${level}`;
  } catch (e) {
    fail($("op-status"), e);
  } finally {
    $("send").disabled = false;
  }
});

followHeads().catch((e) => fail($("status"), e));
