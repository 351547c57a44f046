/**
 * Hangzhou (protocol 011, `PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx`) encodings:
 * block headers, operations, scripts and the small protocol types.
 * @module
 */
export * from "./basic.ts";
export * from "./block-header.ts";
export * from "./operation.ts";
export * from "./script.ts";
export * from "./receipts/mod.ts";
