/**
 * The node under Deno: `deno run -A platform/deno/main.ts [OPTIONS]`.
 * @module
 */
import process from "node:process";
import { run } from "../run.ts";
import { serve } from "./serve.ts";

await run(process.argv.slice(2), { serve });
