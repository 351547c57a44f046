/**
 * Every bench, one after the other (`npm run bench`): HTTP requests per second (`http.ts`), blocks
 * baked and validated per second (`chain.ts`), operations (`operations.ts`), the Michelson interpreter
 * and big map calls (`michelson.ts`), then the context store (`context.ts`, when present).
 * See `docs/bench.md`.
 * @module
 */
import { existsSync } from "node:fs";
import { benchChain } from "./chain.ts";
import { benchHttp } from "./http.ts";
import { benchOperations } from "./operations.ts";
import { benchMichelson } from "./michelson.ts";

console.log("== HTTP");
await benchHttp();

console.log("\n== Chain");
await benchChain();

console.log("\n== Operations");
await benchOperations();

console.log("\n== Michelson");
await benchMichelson();

const context = new URL("./context.ts", import.meta.url);
if (existsSync(context)) {
  console.log("\n== Context");
  const { benchContext } = (await import(context.href)) as { benchContext(): Promise<unknown> };
  await benchContext();
}
