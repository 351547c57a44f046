/**
 * Impersonation with each pinned Taquito (issue 16): a toolkit whose signer knows bootstrap1's
 * address and public key but signs with random bytes. Its transfer is refused (preapply checks
 * the signature) until `POST /sandbox/impersonate` names bootstrap1; then it is applied and
 * included, the balance moves, and `GET /sandbox/impersonated_operations` lists it. After
 * `POST /sandbox/stop_impersonating` the same toolkit is refused again. The shared node stops
 * impersonating whatever happens, so the other files see bootstrap1 as usual.
 */
import { randomBytes } from "node:crypto";
import { explained, rejection } from "./contracts-michelson.mjs";
import { control } from "./helpers.mjs";

/** bootstrap1's public key (Octez's sandbox). */
const BOOTSTRAP1_PK = "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav";

/**
 * Defines and runs this scenario with one Taquito version's modules; `formatSignature(bytes)`:
 * the `edsig…` form of 64 signature bytes (the version's own Base58 encoder).
 */
export default function scenario({ suite, assert, sandbox, version, formatSignature }) {
  const { BOOTSTRAP, balanceOf, bounded, testKey, toolkit } = sandbox;
  const test = suite(`Taquito ${version} sandbox impersonation`);
  const bootstrap1 = BOOTSTRAP[0];

  /** A signer that claims bootstrap1 and signs anything with random bytes. */
  const bogusSigner = {
    publicKeyHash: async () => bootstrap1.pkh,
    publicKey: async () => BOOTSTRAP1_PK,
    secretKey: async () => undefined,
    async sign(bytes) {
      const signature = randomBytes(64);
      const sig = formatSignature(new Uint8Array(signature));
      return { bytes, sig, prefixSig: sig, sbytes: bytes + signature.toString("hex") };
    },
  };

  test("a toolkit signing garbage for bootstrap1 is refused, transfers while impersonated, and is refused again after stop", bounded("sandbox impersonation", explained(async () => {
    const tezos = await toolkit(bootstrap1.sk);
    tezos.setSignerProvider(bogusSigner);
    const { pkh: receiver } = await testKey("ed25519", "impersonation receiver");
    const transfer = () => tezos.contract.transfer({ to: receiver, amount: 2 });

    const before = await rejection(transfer());
    assert.ok(before !== undefined, "refused before impersonate");
    assert.match(JSON.stringify(before.errors ?? before.message), /invalid_signature/);

    assert.ok((await control("POST", "/sandbox/impersonate", { address: bootstrap1.pkh })).includes(bootstrap1.pkh));
    try {
      const op = await transfer();
      assert.is(op.status, "applied");
      const level = await op.confirmation(1);
      const block = await tezos.rpc.getBlock({ block: String(level) });
      const included = block.operations[3].find((o) => o.hash === op.hash);
      assert.ok(included !== undefined, `${op.hash} is not in block ${level}`);
      assert.is(included.contents[0].metadata.operation_result.status, "applied");
      assert.is(await balanceOf(tezos, receiver), 2_000_000n);
      const records = await control("GET", "/sandbox/impersonated_operations");
      assert.equal(records.find((r) => r.hash === op.hash), { hash: op.hash, block: block.hash, level, source: bootstrap1.pkh });
    } finally {
      await control("POST", "/sandbox/stop_impersonating", { address: bootstrap1.pkh });
    }

    const after = await rejection(transfer());
    assert.ok(after !== undefined, "refused after stop_impersonating");
    assert.match(JSON.stringify(after.errors ?? after.message), /invalid_signature/);
    assert.is(await balanceOf(tezos, receiver), 2_000_000n);
  })));

  test.run();
}
