/**
 * Hangzhou's context services below `{B}` answer what Octez answers in its sandbox right after
 * activation: the regression captures of `tezt/_regressions/rpc/hangzhou.client.*.out`
 * (constants byte for byte, delegates, contracts, votes, rights, levels), the values of
 * HANGZHOU-FACTS (seeds, rights draw, liquidity baking addresses), and Octez's answers to bad input.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode } from "../../mod.ts";
import { B58, b58decode } from "../../lib/encoding/base58.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { BOOTSTRAP, captured, example } from "../hangzhou/sandbox.ts";
import { encodeBinary } from "../../lib/encoding/codec.ts";
import { unsignedOperation } from "../../lib/encoding/hangzhou/operation.ts";
import { formatSignature, parseSecretKey } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { endorsementWatermark } from "../../lib/crypto/watermark.ts";
import { call, hangzhouFixture, T1, ZERO_SIG } from "./hangzhou-fixture.ts";

type Exchange = { method: string; path: string; response?: Json; output_text?: string };
const exchanges = (name: string) => (example(name) as { exchanges: Exchange[] }).exchanges;
const delegatesCapture = exchanges("hangzhou-sandbox-delegates.json");
const contractsCapture = exchanges("hangzhou-sandbox-contracts.json");
const votesCapture = exchanges("hangzhou-sandbox-votes.json");

/** The first captured response of `path` (placeholders included). */
function first(list: Exchange[], path: string): Json {
  const e = list.find((x) => x.path === path && x.response !== undefined);
  if (e === undefined) throw new Error(`no capture for ${path}`);
  return e.response!;
}

// Votes were captured with blocks_per_voting_period = 4 at level 2 (position 1, remaining 2).
const fx = await hangzhouFixture({ blocks_per_voting_period: 4 });
const B1 = "/chains/main/blocks/1";
const B2 = "/chains/main/blocks/2";
const BOOT1 = BOOTSTRAP[0]!.pkh;
const BOOTSTRAP1_SECRET = "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh";
const FRESH = "tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU"; // the zero key hash: no account
const CPMM = "KT1TxqZ8QtKvLu3V3JH7Gx58n7Co8pgtpQU5";
const LQT = "KT1AafHA1C1vk959wvHWBispY9Y2f3fxBUUo";
const TOKEN = "KT1VqarPDicMFn1ejmQqqshUkUXTCTXwmkCN";

test("createNode serves the sandbox constants byte for byte as Octez prints them", async () => {
  const node = await createNode();
  try {
    const r = await call(node, "/chains/main/blocks/head/context/constants");
    assert.is(r.status, 200);
    assert.is(r.text, JSON.stringify(captured("/chains/main/blocks/head/context/constants")) + "\n");
  } finally {
    await node.close();
  }
});

test("early-layout constant paths answer one field; errors is a JSON schema", async () => {
  assert.equal((await call(fx, `${B1}/context/constants/preserved_cycles`)).json, { preserved_cycles: 2 });
  assert.equal((await call(fx, `${B1}/context/constants/time_between_blocks`)).json, { time_between_blocks: ["1", "0"] });
  assert.equal((await call(fx, `${B1}/context/constants/hard_gas_limits`)).json, { per_block: "5200000", per_operation: "1040000" });
  assert.equal((await call(fx, `${B1}/context/constants/hard_storage_limits`)).json, { per_operation: "60000" });
  // the early constants Hangzhou names otherwise, from the sandbox parameters: 78125 mutez per
  // endorsement × 256 slots, 257 bytes × 250 mutez, time_between_blocks[1]
  assert.equal((await call(fx, `${B1}/context/constants/block_reward`)).json, { block_reward: "20000000" });
  assert.equal((await call(fx, `${B1}/context/constants/origination_burn`)).json, { origination_burn: "64250" });
  assert.equal((await call(fx, `${B1}/context/constants/time_between_slots`)).json, { time_between_slots: "0" });
  assert.equal((await call(fx, `${B1}/context/constants/first_free_baking_slot`)).json, { first_free_baking_slot: 65536 });
  assert.is((await call(fx, `${B1}/context/constants/no_such_constant`)).status, 404);
  const errors = (await call(fx, `${B1}/context/constants/errors`)).json;
  assert.ok(JSON.stringify(errors).includes("proto.011-PtHangz2.delegate.not_registered"));
});

test("the delegates list, a delegate and each of its facts match the capture", async () => {
  assert.equal((await call(fx, `${B1}/context/delegates`)).json, BOOTSTRAP.map((b) => b.pkh).sort(byOctezOrder));
  const info = first(delegatesCapture, "/chains/main/blocks/head/context/delegates/[PUBLIC_KEY_HASH]") as { [k: string]: Json };
  const got = (await call(fx, `${B1}/context/delegates/${BOOT1}`)).json;
  assert.equal(got, { ...info, delegated_contracts: [BOOT1] });
  for (const fact of ["balance", "frozen_balance", "frozen_balance_by_cycle", "staking_balance", "delegated_balance", "deactivated", "grace_period", "voting_power"]) {
    const want = first(delegatesCapture, `/chains/main/blocks/head/context/delegates/[PUBLIC_KEY_HASH]/${fact}`);
    assert.equal((await call(fx, `${B1}/context/delegates/${BOOT1}/${fact}`)).json, want, fact);
  }
  assert.equal((await call(fx, `${B1}/context/delegates/${BOOT1}/delegated_contracts`)).json, [BOOT1]);
  assert.equal((await call(fx, `${B1}/context/delegates?active`)).json, (await call(fx, `${B1}/context/delegates`)).json);
  assert.equal((await call(fx, `${B1}/context/delegates?inactive=true`)).json, []);
});

/** Octez lists delegates in reverse key order: curve (ed25519 first in keys), then hash bytes, reversed. */
function byOctezOrder(a: string, b: string): number {
  return a === b ? 0 : (HEX[a]! < HEX[b]! ? 1 : -1);
}
const HEX: { [pkh: string]: string } = Object.fromEntries(BOOTSTRAP.map((b) => [b.pkh, toHex(b58decode(B58.ed25519PublicKeyHash, b.pkh))]));

test("a key hash that is not a delegate gets delegate.not_registered, traced for balance as Octez does", async () => {
  const r = await call(fx, `${B1}/context/delegates/${FRESH}`);
  assert.is(r.status, 500);
  assert.equal(r.json, [{ kind: "temporary", id: "proto.011-PtHangz2.delegate.not_registered", pkh: FRESH }]);
  const b = await call(fx, `${B1}/context/delegates/${FRESH}/balance`);
  assert.equal(b.json, [
    { kind: "temporary", id: "proto.011-PtHangz2.delegate_service.balance_rpc_on_non_delegate", pkh: FRESH },
    { kind: "temporary", id: "proto.011-PtHangz2.delegate.not_registered", pkh: FRESH },
  ]);
  for (const fact of ["deactivated", "grace_period", "voting_power", "frozen_balance_by_cycle"]) {
    assert.is((await call(fx, `${B1}/context/delegates/${FRESH}/${fact}`)).json[0].id, "proto.011-PtHangz2.delegate.not_registered");
  }
});

test("a malformed key hash or contract is refused with 400 and resto's wording", async () => {
  const r = await call(fx, `${B1}/context/delegates/tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSy`);
  assert.is(r.status, 400);
  assert.match(r.text, /failed to decode Base58Check-encoded data \(Signature.Public_key_hash\): "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSy"/);
  const c = await call(fx, `${B1}/context/contracts/KT1nope/balance`);
  assert.is(c.status, 400);
  assert.match(c.text, /Cannot parse contract id/);
  assert.is((await call(fx, `${B1}/context/nonces/abc`)).status, 400);
  assert.is((await call(fx, `${B1}/helpers/baking_rights?max_priority=x`)).status, 400);
});

test("the contract list is Octez's: originated contracts first, in reverse key order", async () => {
  const list = (await call(fx, `${B1}/context/contracts`)).json as string[];
  const scrubbed = list.map((c) => (c.startsWith("KT1") ? "[CONTRACT_HASH]" : "[PUBLIC_KEY_HASH]"));
  assert.equal(scrubbed, first(contractsCapture, "/chains/main/blocks/head/context/contracts"));
  assert.equal(list.slice(0, 3), [TOKEN, CPMM, LQT]);
  assert.equal(new Set(list.slice(3)), new Set(BOOTSTRAP.map((b) => b.pkh)));
});

test("implicit contracts answer as captured: bootstrap, and an account that does not exist yet", async () => {
  const P = "/chains/main/blocks/head/context/contracts/[PUBLIC_KEY_HASH]";
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}`)).json, { ...(first(contractsCapture, P) as object), delegate: BOOT1 });
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/balance`)).json, "4000000000000");
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/counter`)).json, "0");
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/manager_key`)).json, BOOTSTRAP[0]!.pk);
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/delegate`)).json, BOOT1);
  assert.equal((await call(fx, `${B1}/context/contracts/${FRESH}`)).json, { balance: "0", counter: "0" });
  assert.equal((await call(fx, `${B1}/context/contracts/${FRESH}/manager_key`)).text, "null\n");
  for (const s of ["delegate", "script", "storage"]) assert.is((await call(fx, `${B1}/context/contracts/${FRESH}/${s}`)).status, 404, s);
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/manager`)).json, { manager: BOOT1 });
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/spendable`)).json, { spendable: true });
  assert.equal((await call(fx, `${B1}/context/contracts/${BOOT1}/delegatable`)).json, { delegatable: true });
});

test("originated contracts: balance and script (readable in the status, as stored at /script); counter and manager_key are 404, as is an unknown KT1", async () => {
  const info = (await call(fx, `${B1}/context/contracts/${CPMM}`)).json;
  assert.is(info.balance, "100");
  assert.equal(Object.keys(info), ["balance", "script"]);
  assert.equal(info.script.code[0].prim, "parameter");
  // as Octez 011: the status prints the script parsed back (Readable, parameter first), /script is the stored one
  const stored = (await call(fx, `${B1}/context/contracts/${CPMM}/script`)).json;
  assert.equal(stored.code.map((s: { prim: string }) => s.prim).sort(), info.script.code.map((s: { prim: string }) => s.prim).sort());
  assert.equal((await call(fx, `${B1}/context/contracts/${CPMM}/storage`)).json, info.script.storage);
  assert.is((await call(fx, `${B1}/context/contracts/${CPMM}/counter`)).status, 404);
  assert.is((await call(fx, `${B1}/context/contracts/${CPMM}/manager_key`)).status, 404);
  assert.is((await call(fx, `${B1}/context/contracts/${CPMM}/delegate`)).status, 404);
  assert.equal((await call(fx, `${B1}/context/contracts/${CPMM}/spendable`)).json, { spendable: false });
  const unknown = "KT1BEqzn5Wx8uJrZNvuS9DVHmLvG9td3fDLi";
  for (const s of ["", "/balance", "/script", "/storage", "/delegate", "/counter", "/manager_key"]) {
    assert.is((await call(fx, `${B1}/context/contracts/${unknown}${s}`)).status, 404, s);
  }
});

test("votes at level 2 match the capture taken before any proposal", async () => {
  for (const name of ["ballot_list", "ballots", "current_period", "current_proposal", "current_quorum", "successor_period", "total_voting_power"]) {
    const want = first(votesCapture, `/chains/main/blocks/head/votes/${name}`);
    assert.equal((await call(fx, `${B2}/votes/${name}`)).json, want, name);
  }
  const listings = (await call(fx, `${B2}/votes/listings`)).json as { pkh: string; rolls: number }[];
  assert.equal(listings.map((l) => ({ pkh: "[PUBLIC_KEY_HASH]", rolls: l.rolls })), first(votesCapture, "/chains/main/blocks/head/votes/listings"));
  assert.equal(listings.map((l) => l.pkh), (await call(fx, `${B2}/context/delegates`)).json);
  assert.equal((await call(fx, `${B2}/votes/proposals`)).json, []);
  assert.equal((await call(fx, `${B2}/votes/current_period_kind`)).json, "proposal");
});

test("levels at level 1 match the capture; offsets move the level and the cycle", async () => {
  assert.equal((await call(fx, `${B1}/helpers/current_level?offset=0`)).json, captured("/chains/main/blocks/head/helpers/current_level?offset=0"));
  assert.equal((await call(fx, `${B1}/helpers/levels_in_current_cycle`)).json, captured("/chains/main/blocks/head/helpers/levels_in_current_cycle"));
  assert.equal((await call(fx, `${B1}/helpers/current_level?offset=9`)).json, { level: 10, level_position: 9, cycle: 1, cycle_position: 1, expected_commitment: false });
  assert.equal((await call(fx, `${B1}/helpers/levels_in_current_cycle?offset=2`)).json, { first: 17, last: 24 });
  assert.is((await call(fx, `${B1}/helpers/levels_in_current_cycle?offset=-1`)).status, 404);
  const neg = await call(fx, `${B1}/helpers/current_level?offset=-2`);
  assert.is(neg.status, 500);
  assert.is(neg.json[0].id, "proto.011-PtHangz2.negative_level_and_offset_sum");
  // A cycle whose levels pass int32 is where Octez's Level_repr fails: a `failure`, not a crash.
  const far = await call(fx, `${B1}/helpers/levels_in_current_cycle?offset=2147483647`);
  assert.is(far.status, 500);
  assert.equal(far.json, [{ kind: "temporary", id: "failure", msg: "The first level of cycle 2147483647 does not fit in an int32" }]);
});

test("rights at level 1: endorsing slots of level 1 and baking priorities of level 2 as captured", async () => {
  const endorsing = (await call(fx, `${B1}/helpers/endorsing_rights`)).json as { level: number; delegate: string; slots: number[]; estimated_time: string }[];
  const want = captured("/chains/main/blocks/head/helpers/endorsing_rights") as { slots: number[] }[];
  assert.equal(endorsing.map((e) => e.slots), want.map((w) => w.slots));
  // HANGZHOU-FACTS §2.3: the delegates behind those slots.
  assert.equal(endorsing.map((e) => e.delegate), [
    "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN",
    "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU",
    "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv",
    "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv",
    "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx",
  ]);
  assert.ok(endorsing.every((e) => e.level === 1 && e.estimated_time === "2021-01-01T00:00:00Z"));
  const baking = (await call(fx, `${B1}/helpers/baking_rights`)).json as { level: number; delegate: string; priority: number; estimated_time: string }[];
  const scrub = (l: typeof baking) => l.map((r) => ({ ...r, delegate: "[PUBLIC_KEY_HASH]", estimated_time: "[TIMESTAMP]" }));
  assert.equal(scrub(baking), captured("/chains/main/blocks/head/helpers/baking_rights"));
  assert.equal(baking.map((r) => r.delegate.slice(0, 7)), ["tz1fasw", "tz1ddb9", "tz1KqTp", "tz1gjaF", "tz1b7tU"]);
  assert.equal(baking[0]!.estimated_time, "2021-01-01T00:00:01Z");
  const mine = (await call(fx, `${B1}/helpers/baking_rights?delegate=${BOOT1}&max_priority=9&all`)).json;
  assert.equal(mine, [{ level: 2, delegate: BOOT1, priority: 4, estimated_time: "2021-01-01T00:00:01Z" }]);
  const past = (await call(fx, `${B2}/helpers/endorsing_rights?level=1&delegate=${BOOT1}`)).json;
  assert.equal(past, [{ level: 1, delegate: BOOT1, slots: want[4]!.slots }]);
});

test("block times: minimal valid time from the block's timestamp; required endorsements as Florence", async () => {
  // Sandbox: time_between_blocks [1, 0], minimal_block_delay 1, initial_endorsers 1, delay 1 s.
  assert.equal((await call(fx, `${B1}/minimal_valid_time`)).json, new Date((T1 + 2) * 1000).toISOString().replace(".000", ""));
  assert.equal((await call(fx, `${B1}/minimal_valid_time?priority=0&endorsing_power=200`)).json, "2021-01-01T00:00:01Z");
  assert.equal((await call(fx, `${B1}/required_endorsements`)).json, 1);
  assert.equal((await call(fx, `${B1}/required_endorsements?block_delay=5`)).json, 0);
});

test("endorsing power: the slots of the delegate that signed a wrapped endorsement; a bare one is refused", async () => {
  const inner = { branch: fx.level1, operations: { kind: "endorsement" as const, level: 1 } };
  const bytes = encodeBinary(unsignedOperation, { branch: inner.branch, contents: [inner.operations] });
  const sig = await sign(parseSecretKey(BOOTSTRAP1_SECRET), bytes, endorsementWatermark(b58decode(B58.chainId, "NetXdQprcVkpaWU")));
  const wrapped = {
    branch: fx.level1,
    contents: [{ kind: "endorsement_with_slot", endorsement: { ...inner, signature: formatSignature(sig) }, slot: 9 }],
    signature: ZERO_SIG,
  };
  const post = (op: unknown) =>
    call(fx, `${B2}/endorsing_power`, {
      method: "POST",
      body: JSON.stringify({ endorsement_operation: op, chain_id: "NetXdQprcVkpaWU" }),
      headers: { "content-type": "application/json" },
    });
  // HANGZHOU-FACTS §2.3: bootstrap1 (tz1KqTp…) has 40 slots at level 1, 9 among them.
  assert.is((await post(wrapped)).json, 40);
  const wrongSlot = await post({ ...wrapped, contents: [{ ...wrapped.contents[0], slot: 2 }] });
  assert.is(wrongSlot.json[0].id, "proto.011-PtHangz2.baking.unexpected_endorsement");
  const bare = await post({ branch: fx.level1, contents: [inner.operations], signature: formatSignature(sig) });
  assert.equal(bare.json, [{ kind: "temporary", id: "failure", msg: "Operation is not a wrapped endorsement" }]);
});

test("nonces, seed and liquidity baking: nothing committed yet, the initial seed, the CPMM", async () => {
  assert.equal((await call(fx, `${B1}/context/nonces/1`)).json, {});
  const seed = await call(fx, `${B1}/context/seed`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  assert.is(seed.json, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  assert.is((await call(fx, `${B1}/context/liquidity_baking/cpmm_address`)).json, CPMM);
});

test("the raw context: bytes as stored, JSON with known values decoded and Octez's depth", async () => {
  assert.is((await call(fx, `${B1}/context/raw/bytes/version`)).json, "68616e677a686f755f303131");
  assert.is((await call(fx, `${B1}/context/raw/json/version`)).json, "hangzhou_011");
  const votes = (await call(fx, `${B1}/context/raw/json/votes`)).json;
  assert.equal(votes, {
    current_period: { index: 0, kind: "proposal", start_position: 0 },
    listings: {},
    listings_size: 2500,
    participation_ema: 7000,
    pred_period_kind: "proposal",
  });
  assert.equal((await call(fx, `${B1}/context/raw/json/votes?depth=1`)).json.listings, { ed25519: {} });
  const listing = (await call(fx, `${B1}/context/raw/json/votes/listings?depth=1`)).json.ed25519;
  assert.equal(Object.values(listing), [500, 500, 500, 500, 500]);
  assert.equal((await call(fx, `${B1}/context/raw/json/votes?depth=-1`)).json, {});
  const seeds = (await call(fx, `${B1}/context/raw/bytes/cycle/0?depth=2`)).json;
  assert.equal((await call(fx, `${B1}/context/raw/bytes/cycle/0?depth=1`)).json.random_seed, null);
  assert.is(seeds.random_seed, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  assert.is((await call(fx, `${B1}/context/raw/bytes/nothing/here`)).status, 404);
  assert.is((await call(fx, `${B1}/context/raw/json/nothing`)).status, 404);
  // The early layout's raw_context is the same service.
  assert.is((await call(fx, `/blocks/${fx.level1}/raw_context/version`)).json, "68616e677a686f755f303131");
});

test("binary answers carry data-encoding's bytes behind a length", async () => {
  const r = await fx.fetch(new Request(`http://localhost${B1}/context/delegates/${BOOT1}/grace_period`, { headers: { accept: "application/octet-stream" } }));
  assert.equal([...new Uint8Array(await r.arrayBuffer())], [0, 0, 0, 4, 0, 0, 0, 5]);
});

test.run();
