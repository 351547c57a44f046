/**
 * Network versions (Octez `src/lib_base/network_version.ml`): what a node announces (its chain
 * name with its highest distributed DB and P2P versions) and how it chooses, from a peer's
 * announcement, the versions to speak, or the motive to refuse it.
 * @module
 */
import { utf8 } from "../encoding/bytes.ts";
import { RejectionMotive, type RejectionMotiveCode } from "./encoding/ack.ts";
import { DISTRIBUTED_DB_VERSIONS } from "./encoding/chain-messages.ts";
import type { NetworkVersion } from "./encoding/connection.ts";

/** The P2P versions Octez v12 speaks (`P2p_version.supported`): 0, and 1 (Nack with points). */
export const P2P_VERSIONS: readonly number[] = Object.freeze([0, 1]);

/** The versions a node speaks. */
export interface SupportedVersions {
  /** Distributed DB versions (Octez v12: 0, 1, 2). */
  readonly distributedDb: readonly number[];
  /** P2P versions (Octez v12: 0, 1). */
  readonly p2p: readonly number[];
}

/** Octez v12's versions. */
export const OCTEZ_V12_VERSIONS: SupportedVersions = Object.freeze({ distributedDb: DISTRIBUTED_DB_VERSIONS, p2p: P2P_VERSIONS });

function greatest(xs: readonly number[], what: string): number {
  if (xs.length === 0) throw new RangeError(`${what} versions must not be empty`);
  for (const x of xs) if (!Number.isInteger(x) || x < 0 || x > 0xffff) throw new RangeError(`${what} version ${x} is not a uint16`);
  return Math.max(...xs);
}

/** What a node announces (`Network_version.announced`): its chain name and highest versions. */
export function announcedVersion(chainName: string, versions: SupportedVersions = OCTEZ_V12_VERSIONS): NetworkVersion {
  return {
    chain_name: chainName,
    distributed_db_version: greatest(versions.distributedDb, "distributed DB"),
    p2p_version: greatest(versions.p2p, "P2P"),
  };
}

/** The versions two nodes speak, or why not. */
export type VersionSelection = { ok: true; version: NetworkVersion } | { ok: false; motive: RejectionMotiveCode };

function maySelect(accepted: readonly number[], remote: number): number | undefined {
  const best = Math.max(...accepted);
  if (best <= remote) return best;
  if (accepted.includes(remote)) return remote;
  return undefined;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Octez's `Network_version.select`: the chain names must be equal (byte for byte: pass the
 * received bytes as `remoteChainName` when they may not be UTF-8), else `Unknown_chain_name`;
 * for each of the distributed DB then the P2P version, our highest if the peer's is at least
 * that, else the peer's if we speak it, else `Deprecated_distributed_db_version` /
 * `Deprecated_p2p_version`.
 */
export function selectVersion(
  chainName: string,
  versions: SupportedVersions,
  remote: NetworkVersion,
  remoteChainName: Uint8Array = utf8(remote.chain_name),
): VersionSelection {
  greatest(versions.distributedDb, "distributed DB");
  greatest(versions.p2p, "P2P");
  if (!sameBytes(utf8(chainName), remoteChainName)) return { ok: false, motive: RejectionMotive.UnknownChainName };
  const ddb = maySelect(versions.distributedDb, remote.distributed_db_version);
  if (ddb === undefined) return { ok: false, motive: RejectionMotive.DeprecatedDistributedDbVersion };
  const p2p = maySelect(versions.p2p, remote.p2p_version);
  if (p2p === undefined) return { ok: false, motive: RejectionMotive.DeprecatedP2pVersion };
  return { ok: true, version: { chain_name: chainName, distributed_db_version: ddb, p2p_version: p2p } };
}
