import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import type { Json } from "../../lib/encoding/codec.ts";
import type { Reveal, Transaction } from "../../lib/encoding/hangzhou/operation.ts";
import { decodeBinary } from "../../lib/encoding/codec.ts";
import { hangzhouBlockMetadata } from "../../lib/encoding/hangzhou/receipts/block-metadata.ts";
import { ZERO_BAKER } from "../../lib/protocols/hangzhou/apply/block.ts";
import {
  allocated,
  findManagerKey,
  getBalance,
  getCounter,
  globalCounter,
} from "../../lib/protocols/hangzhou/storage/contract.ts";
import { getFrozen, stakingBalance } from "../../lib/protocols/hangzhou/storage/frozen.ts";
import { formatPublicKey } from "../../lib/crypto/keys.ts";
import { hangzhouChain } from "./chain-fixture.ts";
import {
  applyDirect,
  applyOn,
  BOOTSTRAP,
  bakeManager,
  forge,
  freshAccount,
  manager,
  managerReceipts,
  preapplyInMempool,
  receiptJson,
} from "./manager-fixture.ts";

const [b1, b2, b3] = BOOTSTRAP as [typeof BOOTSTRAP[0], typeof BOOTSTRAP[0], typeof BOOTSTRAP[0]];
const TEZ = 1_000_000n;

const tx = (source: string, counter: bigint, destination: string, amount: bigint, extra: Partial<Transaction> = {}) =>
  manager<Transaction>({ kind: "transaction", source, counter, destination, amount, ...extra });

const reveal = (source: string, pk: string, counter: bigint, extra: Partial<Reveal> = {}) =>
  manager<Reveal>({ kind: "reveal", source, public_key: pk, counter, ...extra });

const taquito = JSON.parse(
  readFileSync(new URL("../vectors/taquito/taquito-example-bodies.json", import.meta.url), "utf8"),
) as { taquito: string; scenario: string; url: string; mock_response: Json }[];

/** The key sequence of every object in a JSON value, values dropped: the shape Octez prints. */
function shape(j: Json): Json {
  if (Array.isArray(j)) return j.map(shape);
  if (j !== null && typeof j === "object") return Object.entries(j).map(([k, v]) => [k, shape(v)]);
  return typeof j;
}

const T = suite("manager transfers");

T("a transfer between bootstrap accounts moves the amount, takes the fee and increments the counters", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const before = h.protoAt(h.chain.head);
  const op = await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, b3.pkh, 5n * TEZ, { fee: 1283n })]);
  const { pc, results } = await applyDirect(h, op);
  assert.is(getBalance(pc, b2.pkh), getBalance(before, b2.pkh) - 5n * TEZ - 1283n);
  assert.is(getBalance(pc, b3.pkh), getBalance(before, b3.pkh) + 5n * TEZ);
  assert.is(stakingBalance(pc, b2.pkh), stakingBalance(before, b2.pkh) - 5n * TEZ - 1283n);
  assert.is(stakingBalance(pc, b3.pkh), stakingBalance(before, b3.pkh) + 5n * TEZ);
  assert.is(getCounter(before, b2.pkh), 0n);
  assert.is(getCounter(pc, b2.pkh), 1n);
  assert.is(globalCounter(pc), 1n);
  assert.is(pc.fees, 1283n);
  assert.is(pc.remainingBlockGas, pc.constants.hard_gas_limit_per_block * 1000n - 1520n * 1000n, "the block is charged the gas limit");
  assert.equal(receiptJson(results), [
    {
      kind: "transaction",
      balance_updates: [
        { kind: "contract", contract: b2.pkh, change: "-1283", origin: "block" },
        { kind: "freezer", category: "fees", delegate: b1.pkh, cycle: 0, change: "1283", origin: "block" },
      ],
      operation_result: {
        status: "applied",
        balance_updates: [
          { kind: "contract", contract: b2.pkh, change: "-5000000", origin: "block" },
          { kind: "contract", contract: b3.pkh, change: "5000000", origin: "block" },
        ],
        consumed_gas: "1420",
        consumed_milligas: "1420000",
      },
    },
  ]);
});

T("receipts have the shape of Hangzhou receipts as Taquito reads them (keys and their order)", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh = freshAccount("ed25519", 7);
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [tx(b1.pkh, 1n, fresh.pkh, 10n * TEZ, { storage_limit: 257n })])]);
  const op = await forge(fresh.sk, h.chain.head.hash, [
    reveal(fresh.pkh, fresh.pk, 2n, { fee: 374n }),
    tx(fresh.pkh, 3n, b2.pkh, 1_500_000n, { fee: 502n }),
  ]);
  const { block } = await bakeManager(h, [op]);
  const ours = receiptJson(managerReceipts(block)[0]!) as Json[];
  const preapply = taquito.find((e) => e.taquito === "v11" && e.scenario === "transfer" && e.url.endsWith("/preapply/operations"))!;
  const contents = (preapply.mock_response as { contents: { metadata: Json }[] }[])[0]!.contents;
  assert.equal(shape(ours[0]!), shape({ kind: "reveal", ...(contents[0]!.metadata as object) }));
  const theirs = contents[1]!.metadata as { operation_result: { [k: string]: Json } };
  const { allocated_destination_contract: _, ...notAllocating } = theirs.operation_result;
  assert.equal(shape(ours[1]!), shape({ kind: "transaction", ...theirs, operation_result: notAllocating }));
});

T("a transfer to a new tz2 account allocates it: the payer burns 257 bytes × 250 mutez", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh = freshAccount("secp256k1", 0x21);
  assert.match(fresh.pkh, /^tz2/);
  const before = h.protoAt(h.chain.head);
  const op = await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, fresh.pkh, 20n * TEZ, { storage_limit: 257n })]);
  const { pc, results } = await applyDirect(h, op);
  assert.ok(allocated(pc, fresh.pkh));
  assert.is(getBalance(pc, fresh.pkh), 20n * TEZ);
  assert.is(getBalance(pc, b2.pkh), getBalance(before, b2.pkh) - 20n * TEZ - 1000n - 64_250n);
  assert.is(getCounter(pc, fresh.pkh), 1n, "a new account starts at the global counter");
  assert.is(findManagerKey(pc, fresh.pkh), undefined);
  assert.equal((receiptJson(results) as any)[0].operation_result, {
    status: "applied",
    balance_updates: [
      { kind: "contract", contract: b2.pkh, change: "-20000000", origin: "block" },
      { kind: "contract", contract: fresh.pkh, change: "20000000", origin: "block" },
      { kind: "contract", contract: b2.pkh, change: "-64250", origin: "block" },
    ],
    consumed_gas: "1420",
    consumed_milligas: "1420000",
    allocated_destination_contract: true,
  });
});

T("an allocation beyond the storage limit is backtracked with storage_exhausted.operation, the fee still paid", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh = freshAccount("p256", 0x31);
  const before = h.protoAt(h.chain.head);
  const op = await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, fresh.pkh, 20n * TEZ, { storage_limit: 256n })]);
  const { pc, results } = await applyDirect(h, op);
  assert.not.ok(allocated(pc, fresh.pkh));
  assert.is(getBalance(pc, b2.pkh), getBalance(before, b2.pkh) - 1000n);
  assert.is(getCounter(pc, b2.pkh), 1n);
  const r = (receiptJson(results) as any)[0].operation_result;
  assert.is(r.status, "backtracked");
  assert.equal(r.errors, [{ kind: "temporary", id: "proto.011-PtHangz2.storage_exhausted.operation" }]);
  assert.is(r.allocated_destination_contract, true);
  assert.is(r.consumed_milligas, "1420000");
});

T("a reveal then a transfer in one batch from a new tz3 account, baked in a block", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh = freshAccount("p256", 0x42);
  assert.match(fresh.pkh, /^tz3/);
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [tx(b1.pkh, 1n, fresh.pkh, 100n * TEZ, { storage_limit: 257n })])]);
  let pc = h.protoAt(h.chain.head);
  assert.is(getCounter(pc, fresh.pkh), 1n);
  const op = await forge(fresh.sk, h.chain.head.hash, [
    reveal(fresh.pkh, fresh.pk, 2n, { fee: 400n, gas_limit: 581n }),
    tx(fresh.pkh, 3n, b2.pkh, 7n * TEZ, { fee: 500n }),
  ]);
  const { block, baker } = await bakeManager(h, [op]);
  pc = h.protoAt(block);
  assert.is(getBalance(pc, fresh.pkh), 100n * TEZ - 900n - 7n * TEZ);
  assert.is(getCounter(pc, fresh.pkh), 3n);
  assert.is(formatPublicKey(findManagerKey(pc, fresh.pkh)!), fresh.pk);
  const receipt = receiptJson(managerReceipts(block)[0]!) as any[];
  assert.equal(receipt[0], {
    kind: "reveal",
    balance_updates: [
      { kind: "contract", contract: fresh.pkh, change: "-400", origin: "block" },
      { kind: "freezer", category: "fees", delegate: baker, cycle: 0, change: "400", origin: "block" },
    ],
    operation_result: { status: "applied", consumed_gas: "500", consumed_milligas: "500000" },
  });
  assert.is(receipt[1].operation_result.status, "applied");
  assert.is(receipt[1].operation_result.consumed_milligas, "1420000");
  const meta = decodeBinary(hangzhouBlockMetadata, block.info.metadata!);
  assert.is(meta.consumed_gas, (581n + 1520n) * 1000n, "block gas is the sum of the declared limits");
  assert.is(getFrozen(pc, baker, 0, "fees"), 900n, "the fees are frozen for the baker");
});

T("emptying an implicit account that has no delegate removes it", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh = freshAccount("ed25519", 0x55);
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [tx(b1.pkh, 1n, fresh.pkh, 10n * TEZ, { storage_limit: 257n })])]);
  const op = await forge(fresh.sk, h.chain.head.hash, [
    reveal(fresh.pkh, fresh.pk, 2n),
    tx(fresh.pkh, 3n, b2.pkh, 10n * TEZ - 2000n),
  ]);
  const { pc, results } = await applyDirect(h, op);
  assert.equal(results.map((r) => (r as any).operation_result.status), ["applied", "applied"]);
  assert.not.ok(allocated(pc, fresh.pkh));
  assert.is(findManagerKey(pc, fresh.pkh), undefined);
  assert.is(getCounter(pc, fresh.pkh), globalCounter(pc), "an unallocated account reads the global counter");
});

T("a storage burn the payer cannot afford is backtracked under contract.cannot_pay_storage_fee", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const fresh = freshAccount("ed25519", 0x56);
  const target = freshAccount("secp256k1", 0x57);
  await bakeManager(h, [await forge(b1.sk, h.chain.head.hash, [tx(b1.pkh, 1n, fresh.pkh, 10n * TEZ, { storage_limit: 257n })])]);
  const op = await forge(fresh.sk, h.chain.head.hash, [
    reveal(fresh.pkh, fresh.pk, 2n),
    tx(fresh.pkh, 3n, target.pkh, 9_990_000n, { storage_limit: 257n }),
  ]);
  const { pc, results } = await applyDirect(h, op);
  const receipt = receiptJson(results) as any[];
  assert.equal(receipt[0].operation_result, { status: "applied", consumed_gas: "500", consumed_milligas: "500000" }, "an applied reveal is not backtracked");
  assert.is(receipt[1].operation_result.status, "backtracked");
  assert.equal(receipt[1].operation_result.errors, [
    { kind: "temporary", id: "proto.011-PtHangz2.contract.cannot_pay_storage_fee" },
    { kind: "temporary", id: "proto.011-PtHangz2.contract.balance_too_low", contract: fresh.pkh, balance: "8000", amount: "64250" },
  ]);
  assert.is(getBalance(pc, fresh.pkh), 10n * TEZ - 2000n);
  assert.not.ok(allocated(pc, target.pkh));
  assert.is(formatPublicKey(findManagerKey(pc, fresh.pkh)!), fresh.pk, "the reveal of the precheck stays");
});

T("in the mempool (no protocol data) the fees go to the zero baker tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const op = await forge(b2.sk, h.chain.head.hash, [tx(b2.pkh, 1n, b3.pkh, TEZ)]);
  const [receipt] = await preapplyInMempool(h, [op]);
  const fees = (receiptJson(receipt!) as any)[0].balance_updates[1];
  assert.is(ZERO_BAKER, "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU");
  assert.equal(fees, { kind: "freezer", category: "fees", delegate: ZERO_BAKER, cycle: 0, change: "1000", origin: "block" });
});

T("two operations of one source in one block use consecutive counters", async () => {
  const h = await hangzhouChain();
  await h.bake();
  const branch = h.chain.head.hash;
  const pc = h.protoAt(h.chain.head);
  await applyOn(h, pc, await forge(b2.sk, branch, [tx(b2.pkh, 1n, b3.pkh, TEZ)]));
  await applyOn(h, pc, await forge(b2.sk, branch, [tx(b2.pkh, 2n, b3.pkh, TEZ)]));
  assert.is(getCounter(pc, b2.pkh), 2n);
  assert.is(pc.fees, 2000n);
});

T.run();
