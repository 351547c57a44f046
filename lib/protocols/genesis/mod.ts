/**
 * The genesis protocol (`ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im`, Octez
 * `src/proto_genesis/`): the protocol of the genesis block, whose only job is the activation
 * block at level 1. Its block header data is a signed command (`./command.ts`); applying it
 * checks the signature with the genesis key and writes the new protocol and its parameters to
 * the context (`./activation.ts`, `./context.ts`); its errors are `proto.genesis.*`
 * (`./errors.ts`).
 *
 * @example
 * ```ts
 * import { forgeActivation, beginApplication } from "./lib/protocols/genesis/mod.ts";
 * const { protocolData } = await forgeActivation({ chainId: "NetXdQprcVkpaWU", shellHeader,
 *   protocol: "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx", fitness: 1, parameters,
 *   secretKey: "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6" });
 * const result = await beginApplication({ chainId: "NetXdQprcVkpaWU", context: genesisContext, shellHeader, protocolData });
 * result.context.get(["protocol"]); // the 32 bytes of PtHangz2…
 * ```
 * @module
 */
export * from "./command.ts";
export * from "./errors.ts";
export * from "./context.ts";
export * from "./activation.ts";
export * from "./protocol.ts";
