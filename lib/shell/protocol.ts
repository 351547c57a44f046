/**
 * The seam between the shell and an economic protocol, after Octez's `Updater.PROTOCOL`: the
 * shell hands a protocol the predecessor's context and a block (or a block being built) and
 * gets back the new context, fitness and receipts. A protocol never sees HTTP or the store's
 * tables; the shell never looks inside protocol data or receipts.
 * @module
 */
import type { RawBlockHeader, ShellHeader } from "../encoding/block-header.ts";
import type { Context } from "../store/context/mod.ts";

/** Size limits of one validation pass (Octez's `operation_list_quota`). */
export interface OperationListQuota {
  readonly max_size: number;
  readonly max_op?: number;
}

/** What a protocol knows of the block it builds on. */
export interface Predecessor {
  readonly hash: string;
  readonly header: RawBlockHeader;
  readonly context: Context;
}

/** An operation as the shell passes it: its hash, branch and protocol bytes. */
export interface ShellOperation {
  /** The hash of branch ‖ proto (`shellOperation` computes it): protocols keep readings by it. */
  readonly hash: string;
  readonly branch: string;
  /** The operation's protocol part (everything after the 32-byte branch). */
  readonly proto: Uint8Array;
}

/** What applying (or building) a block yields, before the shell commits the context. */
export interface BlockResult {
  readonly context: Context;
  readonly fitness: Uint8Array[];
  /** Commit message of the context. */
  readonly message: string;
  readonly maxOperationsTtl: number;
  readonly lastAllowedForkLevel: number;
  /** Block metadata in the protocol's binary encoding. */
  readonly metadata: Uint8Array;
}

/** A block being validated or built: operations go in one by one, then it is finalized. */
export interface ValidationState {
  /**
   * Applies one operation; its receipt in the protocol's binary encoding, or throws a TezosError
   * (the state may then hold part of the operation's writes: apply on a {@link fork} to keep it).
   */
  applyOperation(operation: ShellOperation): Promise<Uint8Array>;
  /**
   * Does ahead of an operation's turn what its application will check whatever comes before it
   * (Hangzhou: the signature, with the key known now), so that the application finds it done.
   * Many may run at once, in any order; it changes nothing and never rejects.
   */
  prepare?(operation: ShellOperation): Promise<void>;
  /**
   * A copy that applies operations independently of this state, cheaply (the context is
   * immutable and shared): the prevalidator applies each operation on a fork and keeps the fork
   * only when the operation is applied, as Octez's validation states are values.
   */
  fork(): ValidationState;
  /** Ends the block; `shell` is the header being validated (absent while building one). */
  finalize(shell?: ShellHeader): Promise<BlockResult>;
}

/**
 * Whether an operation whose signature does not check may be applied all the same: asked by the
 * protocol with the operation's source (its account address) and hash, only for an operation
 * whose signature is wrong or cannot be checked (an unrevealed source). The sandbox's
 * impersonation answers it (`lib/sandbox/impersonation.ts`); without one, nothing is waived.
 */
export type SignatureWaived = (source: string, operationHash: string) => boolean;

/** An operation applied with its signature waived: its hash and its source. */
export interface WaivedOperation {
  readonly hash: string;
  readonly source: string;
}

/**
 * Where the shell finds which signatures may be waived (the sandbox's impersonation): for the
 * blocks it builds and its mempool, and for the application of a block, whose waived operations
 * must have been recorded when the node built and stored it.
 */
export interface SignatureWaivers {
  /** For a block being built (baker, `preapply`) and the mempool: asked with the sources of now. */
  readonly building: SignatureWaived;
  /** For the application of block `block`: the operations recorded as waived in it. */
  applying(block: string): SignatureWaived;
  /** Records, before the block is stored, the operations a block the node built holds with waived signatures. */
  record(block: { readonly hash: string; readonly level: number }, waived: readonly WaivedOperation[]): Promise<void>;
}

/** Common arguments of `beginApplication` and `beginConstruction`. */
export interface BlockEnv {
  /** Raw 4-byte chain id (for watermarks). */
  readonly chainId: Uint8Array;
  readonly predecessor: Predecessor;
  /** Which operations may be applied with a wrong signature (see {@link SignatureWaived}); none when absent. */
  readonly signatureWaived?: SignatureWaived;
}

/** An economic protocol the node can run. */
export interface Protocol {
  readonly hash: string;
  /** Protocol environment version (Octez: genesis 0, Hangzhou 3). */
  readonly environmentVersion: number;
  /** One quota per validation pass; their number is the protocol's number of passes. */
  readonly operationListQuota: readonly OperationListQuota[];
  readonly maxBlockHeaderLength: number;
  readonly maxOperationDataLength: number;
  /** The validation passes an operation may go in (none: it can never be included). */
  acceptablePasses(operation: ShellOperation): readonly number[];
  /** Starts validating a complete block (its protocol data included). */
  beginApplication(env: BlockEnv & { readonly header: RawBlockHeader }): Promise<ValidationState>;
  /**
   * Whether a header's protocol data is what a block built with `built` (the protocol data given
   * to {@link beginConstruction}) becomes once the baker seals it: the same contents, only what
   * the baker adds after building may differ (Hangzhou: proof of work nonce and signature).
   * `false` makes the validator apply the block in full.
   */
  sealedFrom(protocolData: Uint8Array, built: Uint8Array): boolean;
  /**
   * Makes the checks of {@link beginApplication} on a complete header (signature, proof of work,
   * timestamp…) and applies nothing: the validator calls it for a block it built itself with
   * {@link beginConstruction} (see {@link sealedFrom}), whose result it keeps.
   */
  checkHeader(env: BlockEnv & { readonly header: RawBlockHeader }): Promise<void>;
  /** Starts building a block at `timestamp`, with the given protocol data when known. */
  beginConstruction(env: BlockEnv & { readonly timestamp: number; readonly protocolData?: Uint8Array }): Promise<ValidationState>;
  /**
   * Runs once when a block's context switches to this protocol (Octez's `init`): migrates the
   * context left by the previous protocol. `shell` is that block's header.
   */
  init(env: { readonly chainId: Uint8Array; readonly context: Context; readonly shell: ShellHeader }): Promise<Omit<BlockResult, "metadata">>;
}
