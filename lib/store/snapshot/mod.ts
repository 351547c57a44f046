/**
 * Snapshots (docs/snapshot.md): export a chain's blocks and the target block's context as one
 * self-checking stream, read its header, import it into a fresh store. Byte streams are async
 * iterables of `Uint8Array`; files are the caller's (`platform/snapshot-command.ts`).
 * @module
 */
export { exportSnapshot, type ExportOptions, newProgress, type SnapshotExport, type SnapshotProgress } from "./export.ts";
export { importSnapshot, type ImportOptions, readSnapshotHeader } from "./import.ts";
export { FORMAT_NAME, SNAPSHOT_VERSION, SnapshotError, type SnapshotHeader, type SnapshotMode } from "./format.ts";
