/**
 * The command line shared by the benches that measure each runtime by running themselves under
 * Bun and Deno as child processes (`http.ts`, `p2p.ts`).
 * @module
 */
import process from "node:process";
import { pathToFileURL } from "node:url";

/** Whether the module of `meta` is the program being run (`import.meta.main` under Deno and Bun, the script path under Node). */
export function isMainModule(meta: ImportMeta): boolean {
  return (meta as { main?: boolean }).main === true || (process.argv[1] !== undefined && meta.url === pathToFileURL(process.argv[1]).href);
}

/** A cross-runtime bench's command line. */
export interface RuntimeBenchArgs<O> {
  /** `--json`: a child run, whose results are the one line of stdout (console.log then goes to stderr). */
  readonly json: boolean;
  /** `--only`: the current runtime alone. */
  readonly only: boolean;
  /** `--options JSON`: the bench's options, `{}` when absent. */
  readonly options: O;
  /** What is left of the command line. */
  readonly rest: string[];
}

/** Reads `--json`, `--only` and `--options JSON` out of `argv`; with `--json`, console.log goes to stderr. */
export function runtimeBenchArgs<O>(argv: readonly string[]): RuntimeBenchArgs<O> {
  const rest = [...argv];
  const flag = (name: string) => {
    const i = rest.indexOf(name);
    if (i >= 0) rest.splice(i, 1);
    return i >= 0;
  };
  const json = flag("--json");
  const only = flag("--only");
  const o = rest.indexOf("--options");
  const options = (o >= 0 ? JSON.parse(rest.splice(o, 2)[1]!) : {}) as O;
  if (json) console.log = (...data: unknown[]) => console.error(...data);
  return { json, only, options, rest };
}
