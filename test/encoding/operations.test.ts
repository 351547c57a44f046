/**
 * Hangzhou operations beyond the vectors: Taquito 24+'s extra reveal byte (TAQUITO-CLIENTS.md §1.1),
 * implicit transaction parameters, missing signatures, validation passes.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DecodeError, decodeBinary, encodeBinary, fromHex, toHex, type Json } from "../../lib/encoding/mod.ts";
import { decodeInjectedOperation, operation, unsignedOperation, validationPass, type Operation } from "../../lib/encoding/hangzhou/mod.ts";

const file = new URL("../vectors/octez/examples/hangzhou-binary-encoding-vectors.json", import.meta.url);
const { vectors } = JSON.parse(readFileSync(file, "utf8")) as { vectors: { encoding: string; json: Json; hex: string }[] };
/** The first operation vector whose first content has this kind. */
const find = (kind: string) =>
  vectors.find((v) => v.encoding === "011-PtHangz2.operation" && (v.json as { contents: { kind: string }[] }).contents[0]!.kind === kind)!;
const reveal = operation.fromJson(find("reveal").json);
const transfer = operation.fromJson(find("transaction").json);

/** What Taquito 24+ forges: Hangzhou bytes with 0x00 right after each reveal's public key. */
function taquitoBytes(op: Operation): Uint8Array {
  const parts: string[] = [toHex(encodeBinary(unsignedOperation, { branch: op.branch, contents: [] }))];
  for (const c of op.contents) {
    parts.push(toHex(encodeBinary(unsignedOperation, { branch: op.branch, contents: [c] })).slice(64));
    if (c.kind === "reveal") parts.push("00");
  }
  parts.push(toHex(encodeBinary(operation, { branch: op.branch, contents: [] , signature: op.signature })).slice(64));
  return fromHex(parts.join(""));
}

test("a reveal followed by Taquito's 0x00 decodes when it is the last content", () => {
  const bytes = taquitoBytes(reveal);
  assert.is(bytes.length, encodeBinary(operation, reveal).length + 1);
  assert.throws(() => decodeBinary(operation, bytes), (e: unknown) => e instanceof DecodeError);
  const { operation: op, extraRevealBytes } = decodeInjectedOperation(bytes);
  assert.is(extraRevealBytes, 1);
  assert.equal(op, reveal);
  assert.is(toHex(encodeBinary(operation, op)), find("reveal").hex);
});

test("a reveal followed by Taquito's 0x00 decodes before a transaction", () => {
  const batch: Operation = { ...reveal, contents: [reveal.contents[0]!, { ...transfer.contents[0]!, counter: 733n } as Operation["contents"][0]] };
  const { operation: op, extraRevealBytes } = decodeInjectedOperation(taquitoBytes(batch));
  assert.is(extraRevealBytes, 1);
  assert.equal(op, batch);
});

test("Hangzhou bytes decode unchanged through the injection decoder", () => {
  const { operation: op, extraRevealBytes } = decodeInjectedOperation(fromHex(find("reveal").hex));
  assert.is(extraRevealBytes, 0);
  assert.equal(op, reveal);
});

test("parameters equal to (default, Unit) are left out, as Octez forges them", () => {
  const explicit = { ...transfer, contents: [{ ...transfer.contents[0]!, parameters: { entrypoint: "default", value: { prim: "Unit" } } }] } as Operation;
  assert.is(toHex(encodeBinary(operation, explicit)), find("transaction").hex);
  assert.equal(operation.toJson(explicit), find("transaction").json);
});

test("a missing signature is 64 zero bytes and reads back as absent", () => {
  const unsigned = operation.fromJson({ branch: reveal.branch, contents: (find("reveal").json as { contents: Json }).contents });
  assert.is(unsigned.signature, undefined);
  const b = encodeBinary(operation, unsigned);
  assert.is(toHex(b.subarray(b.length - 64)), "00".repeat(64));
  assert.is(decodeBinary(operation, b).signature, undefined);
});

test("validation passes follow the first content's kind", () => {
  assert.is(validationPass(operation.fromJson(find("endorsement").json).contents), 0);
  assert.is(validationPass(operation.fromJson(find("ballot").json).contents), 1);
  assert.is(validationPass(operation.fromJson(find("activate_account").json).contents), 2);
  assert.is(validationPass(transfer.contents), 3);
});

test.run();
