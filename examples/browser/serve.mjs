/**
 * A static file server for the example pages, on loopback. It serves the repository's
 * `examples/browser/` and `dist/browser/` (the node's bundle and its protocol source files,
 * which it sends as they are: a `.gz` without `Content-Encoding`, since the node decompresses
 * them itself), and nothing else; `/` leads to the in-tab node's page.
 *
 * `node examples/browser/serve.mjs [PORT]` (8080 by default, 0 for any free port) prints the pages'
 * URLs; the browser test (`test/browser/`) starts it with `serveExamples()`.
 */
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVED = ["examples/browser/", "dist/browser/"];
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".json": "application/json",
  ".png": "image/png",
  ".gz": "application/octet-stream",
};

/** The file of the repository a request path names, if it is one that is served. */
function fileOf(pathname) {
  const relative = normalize(decodeURIComponent(pathname)).replace(/^[/\\]+/, "");
  if (relative.split(/[/\\]/).includes("..") || relative.split(sep).includes("node_modules")) return undefined;
  if (!SERVED.some((prefix) => relative.startsWith(prefix))) return undefined;
  const path = join(ROOT, relative.endsWith("/") ? `${relative}index.html` : relative);
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts the server; resolves to its URL (`http://127.0.0.1:<port>`) and a `close()`.
 * `onRequest(pathname)` is told of each request (the browser test counts them).
 */
export function serveExamples({ host = "127.0.0.1", port = 0, onRequest } = {}) {
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url, "http://x");
    onRequest?.(pathname);
    if (pathname === "/") {
      res.writeHead(302, { Location: "/examples/browser/" }).end();
      return;
    }
    let path;
    try {
      path = req.method === "GET" || req.method === "HEAD" ? fileOf(pathname) : undefined;
    } catch {
      path = undefined; // a malformed %-escape
    }
    if (path === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
      return;
    }
    res.writeHead(200, { "Content-Type": TYPES[extname(path)] ?? "application/octet-stream", "Cache-Control": "no-store" });
    if (req.method === "HEAD") res.end();
    else createReadStream(path).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port } = server.address();
      resolve({
        url: `http://${host}:${port}`,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { url } = await serveExamples({ port: Number(process.argv[2] ?? 8080) });
  console.log(`The node in a tab:        ${url}/examples/browser/`);
  console.log(`Heads across origins:     ${url}/examples/browser/remote.html?node=http://127.0.0.1:8732`);
  console.log(`  (with a node started as npm start -- --cors-origin ${url})`);
}
