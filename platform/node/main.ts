/**
 * The node under Node (`npm start`, i.e. `tsx platform/node/main.ts [OPTIONS]`).
 * @module
 */
import process from "node:process";
import { main } from "../entry.ts";

// The node and the HTTP adapter load only once the command line is read (`entry.ts`).
await main(process.argv.slice(2), async () => (await import("./serve.ts")).serve);
