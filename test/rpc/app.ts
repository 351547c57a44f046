/** A small service tree used by the handler tests: shell-like static services and a block subtree. */
import { defineError, ErrorRegistry, TezosError } from "../../lib/errors/mod.ts";
import {
  blockArg,
  blockHashArg,
  type BlockId,
  chainArg,
  type ChainRef,
  Directory,
  flag,
  intArg,
  mount,
  multi,
  NotFound,
  optional,
  query,
  service,
  stringArg,
  anyJson,
} from "../../lib/rpc/mod.ts";
import { blockHashEnc, emptyEnc, GENESIS_HASH, pairEnc, pkhFields, stringEnc } from "./fixtures.ts";

/** Error used by `/fail`. */
export const testRegistry = new ErrorRegistry();
export const notRegistered = testRegistry.scope("proto.011-PtHangz2.").define({
  id: "delegate.not_registered",
  kind: "temporary",
  title: "Not a registered delegate",
  description: "The provided public key hash is not the address of a registered delegate.",
  fields: pkhFields,
});
void defineError;

/** Context of the block subtree. */
export interface BlockCtx {
  chain: ChainRef;
  block: BlockId;
}

/** Builds the test tree; `builds` counts dynamic subtree builds. */
export function makeRoot(): { root: Directory; builds: { n: number } } {
  const builds = { n: 0 };
  const blockDir = new Directory<BlockCtx>().register(
    service({
      method: "GET",
      path: ["hash"],
      description: "The block's hash, its unique identifier.",
      output: blockHashEnc,
      handler: ({ ctx }) => (ctx.block.kind === "hash" ? ctx.block.hash : GENESIS_HASH),
    }),
    service({
      method: "GET",
      path: ["context", "contracts", stringArg, "counter"],
      description: "Access the counter of a contract, if any.",
      output: stringEnc,
      optional: true,
      handler: ({ params: [contract] }) => (contract.startsWith("tz1") ? "7" : undefined),
    }),
  );
  const root = new Directory().register(
    service({ method: "GET", path: ["version"], output: stringEnc, handler: () => "v12" }),
    service({
      method: "GET",
      path: ["chains", chainArg, "chain_id"],
      output: stringEnc,
      handler: ({ params: [chain] }) => (chain.kind === "id" ? chain.id : "NetXdQprcVkpaWU"),
    }),
    service({
      method: "GET",
      path: ["chains", chainArg, "blocks"],
      query: query({
        length: optional(intArg, "The requested number of predecessors to return (per request; see next argument)."),
        head: multi(blockHashArg, "An empty argument requests blocks starting with the current head."),
      }),
      output: anyJson(),
      handler: ({ query: q }) => ({ length: q.length ?? null, head: q.head }),
    }),
    service({
      method: "DELETE",
      path: ["chains", chainArg, "invalid_blocks", blockHashArg],
      output: emptyEnc,
      handler: () => ({}),
    }),
    service({
      method: "POST",
      path: ["injection", "operation"],
      query: query({ async: flag(), chain: optional(chainArg) }),
      input: stringEnc,
      output: anyJson(),
      handler: ({ body, query: q }) => ({ body, async: q.async, chain: q.chain === undefined ? null : chainArg.print(q.chain) }),
    }),
    service({ method: "POST", path: ["echo_pair"], input: pairEnc, output: pairEnc, handler: ({ body }) => body }),
    service({
      method: "GET",
      path: ["fail"],
      output: stringEnc,
      handler: () => {
        throw notRegistered.error({ pkh: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" });
      },
    }),
    service({
      method: "GET",
      path: ["crash"],
      output: stringEnc,
      handler: () => {
        throw new Error("disk on fire");
      },
    }),
    service({
      method: "GET",
      path: ["missing"],
      output: stringEnc,
      handler: async () => {
        throw new NotFound();
      },
    }),
    service({ method: "GET", path: ["bad_output"], output: pairEnc, handler: () => null as unknown as { a: number } }),
  );
  root.dynamic(["chains", chainArg, "blocks", blockArg], async ([chain, block]) => {
    builds.n++;
    if (block.kind === "level" && block.level > 100) return undefined;
    if (block.kind === "alias" && block.alias === "caboose") throw new TezosError(notRegistered.create({ pkh: "tz1caboose" }));
    return mount(blockDir, { chain, block });
  });
  return { root, builds };
}
