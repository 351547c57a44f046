// The page of remote.html: streams /monitor/heads/main from a node running elsewhere (npm start),
// which must allow this page's origin: `npm start -- --cors-origin <this page's origin>`.
// `?node=http://127.0.0.1:8732` picks the node (that address by default).
import { jsonValues } from "./json-stream.js";

const $ = (id) => document.getElementById(id);
let following;

async function follow(node) {
  following?.abort();
  const stop = (following = new AbortController());
  $("heads").replaceChildren();
  $("status").classList.remove("error");
  $("status").textContent = `Connecting to ${node}…`;
  try {
    const response = await fetch(new URL("/monitor/heads/main", node), { signal: stop.signal });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    $("status").textContent = `Following ${node}`;
    for await (const head of jsonValues(response.body)) {
      const item = document.createElement("li");
      item.innerHTML = `level <b></b> <code></code> <small></small>`;
      item.querySelector("b").textContent = head.level;
      item.querySelector("code").textContent = head.hash;
      item.querySelector("small").textContent = head.timestamp;
      $("heads").prepend(item);
    }
    $("status").textContent = `${node} ended the stream`;
  } catch (e) {
    if (stop.signal.aborted) return;
    $("status").classList.add("error");
    $("status").textContent = e instanceof TypeError
      ? `Cannot read ${node} (${e.message}): is it running with --cors-origin ${location.origin}?`
      : `${node}: ${e.message}`;
  }
}

$("node").value = new URLSearchParams(location.search).get("node") ?? "http://127.0.0.1:8732";
$("connect").addEventListener("submit", (event) => {
  event.preventDefault();
  follow($("node").value);
});
follow($("node").value);
