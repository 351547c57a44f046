/**
 * `helpers/scripts/script_size` (Octez `Script_ir_translator.script_size`): the script and its
 * storage are type checked as Octez does (same errors, same gas for parsing), then measured.
 *
 * Difference: Octez measures the in-memory footprint of the typed code and storage
 * (`Script_typed_ir_size`, a model of OCaml's heap words). This node answers the size of the
 * binary forms of code and storage (the bytes a contract's script takes in the context), which
 * is what the size limits of the chain are about but not the same number as Octez's.
 * @module
 */
import { encodeMicheline, type Micheline } from "../../../encoding/micheline.ts";
import { parseData } from "../../../michelson/data/parse-data.ts";
import { parseScript } from "../../../michelson/script/script.ts";
import type { HangzhouScriptContext } from "../../../protocols/hangzhou/michelson/script-context.ts";

/** The size of a script with its storage (see the module documentation for how it differs from Octez). */
export function scriptSize(sc: HangzhouScriptContext, program: Micheline, storage: Micheline, legacy: boolean): number {
  const script = parseScript(sc, program, { legacy });
  parseData(sc, script.storageTy, storage, { legacy, allowForgedTickets: true, allowForgedLazyStorageId: true });
  return encodeMicheline(program).length + encodeMicheline(storage).length;
}
