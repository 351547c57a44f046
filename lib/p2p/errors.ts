/**
 * Failures of a P2P connection, typed so that the pool can act on them as Octez does
 * (`src/lib_p2p_services/p2p_errors.ml`): `greylist` says whether Octez would greylist the peer's
 * address for it (see `./socket.ts` for the rules).
 * @module
 */

/** What went wrong on a connection. */
export type P2pErrorKind =
  /** The peer closed the connection, or it was closed here (Octez `Connection_closed`). */
  | "connection-closed"
  /** The handshake did not end in time (Octez `Canceled`, from its timeout). */
  | "timeout"
  /** The caller's signal stopped it. */
  | "aborted"
  /** Bytes that do not decode: garbage, truncation, an unknown tag, a size over a bound (Octez `Decoding_error`). */
  | "decoding-error"
  /** A chunk that does not authenticate under the channel key and nonce (Octez `Decipher_error`). */
  | "decipher-error"
  /** A chunk whose length is under the 16-byte tag (Octez `Invalid_incoming_ciphertext_size`). */
  | "invalid-incoming-ciphertext-size"
  /** A message of ours that does not encode (out of Octez's bounds): nothing was sent (Octez `Encoding_error`). */
  | "encoding-error"
  /** A failure of ours, not the peer's (a callback that threw): never greylisted (Octez `Exn`). */
  | "unexpected-error";

/** A failure on a P2P connection. */
export class P2pError extends Error {
  override name = "P2pError";
  /** What went wrong. */
  readonly kind: P2pErrorKind;
  /** Whether Octez would greylist the peer for it. */
  readonly greylist: boolean;
  constructor(kind: P2pErrorKind, message: string, greylist = false) {
    super(message);
    this.kind = kind;
    this.greylist = greylist;
  }
}
