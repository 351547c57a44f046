/**
 * Every bench, one after the other (`npm run bench`): HTTP requests per second (`http.ts`), then
 * the context store (`context.ts`, when present).
 * @module
 */
import { existsSync } from "node:fs";
import { benchHttp } from "./http.ts";

console.log("== HTTP");
await benchHttp();

const context = new URL("./context.ts", import.meta.url);
if (existsSync(context)) {
  console.log("\n== Context");
  const { benchContext } = (await import(context.href)) as { benchContext(): Promise<unknown> };
  await benchContext();
}
