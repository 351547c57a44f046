/**
 * The shell's `forge_block_header` below every block (protocol-independent: the binary of a raw
 * header), at `helpers/forge_block_header` and at `helpers/forge/block_header`, where the early
 * layout's `/forge_block_header` leads.
 * @module
 */
import { rawBlockHeader } from "../../encoding/block-header.ts";
import { bytes } from "../../encoding/bytes.ts";
import { encodeBinary } from "../../encoding/codec.ts";
import { obj, req } from "../../encoding/object.ts";
import { Directory } from "../directory.ts";
import { service } from "../service.ts";
import type { BlockCtx } from "./block-context.ts";

const forgeBlockHeaderOutput = obj(req("block", bytes));

/** The two `forge_block_header` services. */
export function forgeBlockHeaderServices(): Directory<BlockCtx> {
  const forge = (path: readonly string[]) =>
    service({
      method: "POST",
      path,
      description: "Forge a block header",
      input: rawBlockHeader,
      output: forgeBlockHeaderOutput,
      handler: ({ body }) => ({ block: encodeBinary(rawBlockHeader, body) }),
    });
  return new Directory<BlockCtx>().register(forge(["helpers", "forge_block_header"]), forge(["helpers", "forge", "block_header"]));
}
