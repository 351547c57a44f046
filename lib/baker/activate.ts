/**
 * Activation of a protocol on a fresh sandbox chain, as `tezos-client activate protocol … with
 * fitness 1 and key activator and parameters <file>` does it: preapply the command on the
 * genesis block, sign the resulting header with the activator key, inject it.
 * @module
 */
import { encodeBinary, type Json } from "../encoding/codec.ts";
import { activationCommand, forgeActivation } from "../protocols/genesis/activation.ts";
import { command as commandCodec } from "../protocols/genesis/command.ts";
import type { Chain } from "../shell/chain.ts";
import type { BlockValidator } from "../shell/validator.ts";

/** The sandbox activator's secret key (Octez's sandbox genesis key). */
export const SANDBOX_ACTIVATOR_KEY = "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6";

/** What `activateProtocol` needs. */
export interface ActivationRequest {
  readonly chain: Chain;
  readonly validator: BlockValidator;
  readonly protocol: string;
  readonly parameters: Json;
  /** Timestamp of the activation block, seconds. */
  readonly timestamp: number;
  /** The key matching the chain's genesis key; the sandbox activator when absent. */
  readonly secretKey?: string;
}

/** Builds, signs and injects the activation block on genesis; resolves to its hash. */
export async function activateProtocol(req: ActivationRequest): Promise<string> {
  const command = activationCommand({ protocol: req.protocol, parameters: req.parameters });
  const unsigned = new Uint8Array([...encodeBinary(commandCodec, command), ...new Uint8Array(64)]);
  const { shell } = await req.validator.preapply(req.chain.genesis, req.timestamp, unsigned, []);
  const signed = await forgeActivation({
    chainId: req.chain.chainId,
    shellHeader: shell,
    protocol: req.protocol,
    parameters: req.parameters,
    secretKey: req.secretKey ?? SANDBOX_ACTIVATOR_KEY,
  });
  return req.validator.inject(signed.header, []);
}
