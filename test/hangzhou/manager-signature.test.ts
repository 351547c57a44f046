import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { decodeInjectedOperation, type Reveal, type Transaction, unsignedOperation } from "../../lib/encoding/hangzhou/operation.ts";
import { signatureBytes } from "../../lib/encoding/keys.ts";
import { parsePublicKey } from "../../lib/crypto/keys.ts";
import { verify } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { signedOperationBytes } from "../../lib/protocols/hangzhou/apply/manager.ts";
import { formatPublicKey } from "../../lib/crypto/keys.ts";
import { findManagerKey, getCounter } from "../../lib/protocols/hangzhou/storage/contract.ts";
import { TezosError } from "../../lib/errors/registry.ts";
import { shellOperation } from "../../lib/shell/operations.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import { type Account, applyDirect, BOOTSTRAP, bakeManager, forge, freshAccount, manager, receiptJson } from "./manager-fixture.ts";

const b1 = BOOTSTRAP[0] as Account;
const b2 = BOOTSTRAP[1] as Account;
const TEZ = 1_000_000n;
/** Taquito's test account "alice" (TAQUITO-CLIENTS.md §5). */
const ALICE_PK = "edpkvGfYw3LyB1UcCahKQk4rF2tvbMUk8GFiTuMjL75uGXrpvKXhjn";

const bodies = JSON.parse(
  readFileSync(new URL("../vectors/taquito/taquito-example-bodies.json", import.meta.url), "utf8"),
) as { taquito: string; scenario: string; url: string; request_body: unknown }[];

function injected(version: string, scenario: string): Uint8Array {
  const e = bodies.find((b) => b.taquito === version && b.scenario === scenario && b.url === "/injection/operation")!;
  const hex = e.request_body as string;
  return Uint8Array.from(hex.match(/../g)!.map((x) => parseInt(x, 16)));
}

async function verifies(bytes: Uint8Array, signed: Uint8Array): Promise<boolean> {
  const { operation } = decodeInjectedOperation(bytes);
  return verify(parsePublicKey(ALICE_PK), signatureBytes(operation.signature!)!, signed, genericWatermark());
}

const S = suite("manager operation signatures");

S("Taquito 25's injected reveal with the extra 00 byte: its signature covers the bytes as received", async () => {
  for (const scenario of ["transfer", "originate"]) {
    const bytes = injected("v25", scenario);
    const { operation, extraRevealBytes } = decodeInjectedOperation(bytes);
    assert.is(extraRevealBytes, 1);
    const signed = signedOperationBytes(shellOperation(bytes), operation.contents);
    assert.equal(signed, bytes.subarray(0, bytes.length - 64));
    assert.ok(await verifies(bytes, signed), `${scenario}: verifies over the received bytes`);
    const canonical = encodeBinary(unsignedOperation, { branch: operation.branch, contents: operation.contents });
    assert.not.ok(await verifies(bytes, canonical), `${scenario}: not over Hangzhou's re-encoding`);
  }
});

S("Taquito 11's injected reveal and transfer: its signature covers Hangzhou's encoding", async () => {
  const bytes = injected("v11", "transfer");
  const { operation, extraRevealBytes } = decodeInjectedOperation(bytes);
  assert.is(extraRevealBytes, 0);
  const signed = signedOperationBytes(shellOperation(bytes), operation.contents);
  assert.equal(signed, encodeBinary(unsignedOperation, { branch: operation.branch, contents: operation.contents }));
  assert.ok(await verifies(bytes, signed));
});

S("a Taquito 25 style batch (reveal with its 00 byte, then a transfer) is applied from a new tz1", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh: Account = freshAccount("ed25519", 0x81);
  await bakeManager(h, [
    await forge(b1.sk, h.chain.head.hash, [manager<Transaction>({ kind: "transaction", source: b1.pkh, counter: 1n, destination: fresh.pkh, amount: 10n * TEZ, storage_limit: 257n })]),
  ]);
  const contents = [
    manager<Reveal>({ kind: "reveal", source: fresh.pkh, public_key: fresh.pk, counter: 2n, fee: 334n, gas_limit: 633n }),
    manager<Transaction>({ kind: "transaction", source: fresh.pkh, counter: 3n, destination: b2.pkh, amount: 1_500_000n, fee: 315n, gas_limit: 1427n, storage_limit: 277n }),
  ];
  const bytes = await forge(fresh.sk, h.chain.head.hash, contents, { taquitoRevealByte: true });
  assert.is(decodeInjectedOperation(bytes).extraRevealBytes, 1);
  const { pc, results } = await applyDirect(h, bytes);
  assert.equal((receiptJson(results) as any[]).map((r) => r.operation_result.status), ["applied", "applied"]);
  assert.is(formatPublicKey(findManagerKey(pc, fresh.pkh)!), fresh.pk);
  assert.is(getCounter(pc, fresh.pkh), 3n);

  const canonicalSig = await forge(fresh.sk, h.chain.head.hash, contents);
  const tampered = new Uint8Array(bytes);
  tampered.set(canonicalSig.subarray(canonicalSig.length - 64), bytes.length - 64);
  try {
    await applyDirect(h, tampered);
    assert.unreachable("a signature over other bytes than the received ones is refused");
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    assert.is(e.trace[0]!.id, "proto.011-PtHangz2.operation.invalid_signature");
  }
});

S("tz2 and tz3 sources sign their batches with their own curves", async () => {
  for (const curve of ["secp256k1", "p256"] as const) {
    const h = await hangzhouChain();
    await h.bake();
    const fresh = freshAccount(curve, 0x82);
    await bakeManager(h, [
      await forge(b1.sk, h.chain.head.hash, [manager<Transaction>({ kind: "transaction", source: b1.pkh, counter: 1n, destination: fresh.pkh, amount: 10n * TEZ, storage_limit: 257n })]),
    ]);
    const op = await forge(fresh.sk, h.chain.head.hash, [
      manager<Reveal>({ kind: "reveal", source: fresh.pkh, public_key: fresh.pk, counter: 2n, gas_limit: curve === "secp256k1" ? 581n : 1654n }),
      manager<Transaction>({ kind: "transaction", source: fresh.pkh, counter: 3n, destination: b2.pkh, amount: TEZ }),
    ]);
    const { results } = await applyDirect(h, op);
    assert.equal((receiptJson(results) as any[]).map((r) => r.operation_result.status), ["applied", "applied"], curve);
  }
});

S.run();
