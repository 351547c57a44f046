/**
 * Runs this folder's `*.test.mjs` files (Taquito 25.0.0, under Node 24) against one sandbox node;
 * arguments are file-name fragments that select the files.
 */
import { fileURLToPath } from "node:url";
import { runSuite } from "../taquito-common/run-suite.mjs";
import { stopSandbox } from "./support/sandbox.mjs";

await runSuite(fileURLToPath(new URL(".", import.meta.url)), process.argv.slice(2), stopSandbox);
