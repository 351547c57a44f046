/**
 * The genesis protocol behind the shell's `Protocol` interface: it takes no operations, and its
 * one block carries the signed command that activates the next protocol.
 * @module
 */
import type { Protocol, ValidationState } from "../../shell/protocol.ts";
import type { Context } from "../../store/context/mod.ts";
import { beginApplication, beginConstruction, type GenesisValidationResult, MAX_BLOCK_LENGTH, parseProtocolData } from "./activation.ts";
import { GENESIS_PROTOCOL } from "./command.ts";

const NO_METADATA = new Uint8Array(0);

function finished(result: GenesisValidationResult<Context>): ValidationState {
  const state: ValidationState = {
    applyOperation() {
      // The genesis protocol has no validation pass: the shell never gives it an operation.
      return Promise.reject(new RangeError("The genesis protocol takes no operations"));
    },
    finalize: () =>
      Promise.resolve({
        context: result.context,
        fitness: result.fitness,
        message: result.message ?? "",
        maxOperationsTtl: result.maxOperationsTtl,
        lastAllowedForkLevel: result.lastAllowedForkLevel,
        metadata: NO_METADATA,
      }),
    // nothing changes after the start: the state is its own fork
    fork: () => state,
  };
  return state;
}

/** Octez's genesis protocol (`ProtoGenesis…`). */
export const genesisProtocol: Protocol = {
  hash: GENESIS_PROTOCOL,
  environmentVersion: 0,
  operationListQuota: [],
  maxBlockHeaderLength: MAX_BLOCK_LENGTH,
  maxOperationDataLength: 0,
  acceptablePasses: () => [],
  async beginApplication({ chainId, predecessor, header }) {
    const { protocol_data, ...shell } = header;
    return finished(await beginApplication({ chainId, context: predecessor.context, shellHeader: shell, protocolData: protocol_data }));
  },
  // the activation block is applied in full: it happens once
  sealedFrom: () => false,
  async checkHeader({ chainId, predecessor, header }) {
    // the activation's checks are its application (the signed command, written to the context)
    const { protocol_data, ...shell } = header;
    await beginApplication({ chainId, context: predecessor.context, shellHeader: shell, protocolData: protocol_data });
  },
  beginConstruction({ predecessor, timestamp, protocolData }) {
    const command = protocolData === undefined ? undefined : parseProtocolData(protocolData).content;
    return Promise.resolve(
      finished(
        beginConstruction({
          context: predecessor.context,
          predecessorLevel: predecessor.header.level,
          predecessorFitness: predecessor.header.fitness,
          timestamp,
          command,
        }),
      ),
    );
  },
  init({ context, shell }) {
    // Nothing activates the genesis protocol after genesis itself.
    return Promise.resolve({ context, fitness: shell.fitness, message: "", maxOperationsTtl: 0, lastAllowedForkLevel: 0 });
  },
};
