/**
 * Hangzhou's amendment procedure on a real sandbox context (initHangzhou on the Octez sandbox
 * parameters), levels driven by hand: the votes RPCs of the tezt capture
 * `hangzhou.client.votes.out` (blocks_per_cycle = blocks_per_voting_period = 4, a proposal in
 * the block at level 2, three ballots in the block at level 5), periods rolling over at the
 * sandbox's 64 blocks, a full proposal → adoption cycle ending with the context's `protocol`
 * key set, the failures that reset to a proposal period, and every error of the voting
 * operations with Octez's ids and fields.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { B58, b58decode, b58encode } from "../../lib/encoding/base58.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { encodeBinary, type Json } from "../../lib/encoding/codec.ts";
import type { Ballot } from "../../lib/encoding/hangzhou/basic.ts";
import { unsignedOperation, type BallotOperation, type Proposals } from "../../lib/encoding/hangzhou/operation.ts";
import { formatSignature, parseSecretKey } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { genericWatermark } from "../../lib/crypto/watermark.ts";
import { TezosError } from "../../lib/errors/mod.ts";
import { protocolParametersBytes } from "../../lib/protocols/genesis/activation.ts";
import {
  approvalAndParticipationEma,
  currentVotingPeriodInfo,
  mayStartNewVotingPeriod,
  successorPeriod,
  votesRpc,
  VOTES_RPC_NAMES,
} from "../../lib/protocols/hangzhou/amendment.ts";
import { applyBallot, applyProposals, applyVotingOperation, votingOperationSigner } from "../../lib/protocols/hangzhou/apply/voting.ts";
import { initHangzhou } from "../../lib/protocols/hangzhou/init.ts";
import * as S from "../../lib/protocols/hangzhou/storage/mod.ts";
import { emptyContext, type Context } from "../../lib/store/context/mod.ts";
import { MemoryStore } from "../../lib/store/memory.ts";
import { BOOTSTRAP, example } from "./sandbox.ts";

const T1 = 1_600_000_000;
const PARAMS = example("011-hangzhou-protocol-parameters.json") as { [k: string]: Json };
const PREFIX = "proto.011-PtHangz2.";

/** Secret keys of bootstrap1..5 (OCTEZ-FACTS §E). */
const SECRET = [
  "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh",
  "edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo",
  "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ",
  "edsk2uqQB9AY4FvioK2YMdfmyMrer5R8mGFyuaLLFfSRo8EoyNdht3",
  "edsk4QLrcijEffxV31gGdN2HU7UpyJjA8drFoNcmnB28n89YjPNRFm",
];
const ACTIVATOR = "tz1TGu6TN5GSez2ndXXeDX6LgUDvLzPLqgYV";
const B = BOOTSTRAP.map((b) => b.pkh);

/** The proposal of the tezt capture. */
const DEMO = "ProtoDemoNoopsDemoNoopsDemoNoopsDemoNoopsDemo6XBoYp";
/** Protocol 012 Ithaca and 010 Granada: other real protocol hashes. */
const ITHACA = "Psithaca2MLRFYargivpo7YvUr7wUDqyxrdhC5CQq78mRvimz6A";
const GRANADA = "PtGRANADsDU8R9daYKAgWnQYAJ64omN1o3KMGVCykShA97vQbvV";

type Exchange = { method: string; path: string; response: Json };
const votesCapture = (example("hangzhou-sandbox-votes.json") as { exchanges: Exchange[] }).exchanges;

/** A fresh sandbox chain: the activation block's context (level 1) with parameters overridden. */
function activate(overrides: { [k: string]: Json } = {}): Context {
  const ctx = emptyContext(new MemoryStore())
    .set(["version"], new TextEncoder().encode("genesis"))
    .set(["protocol_parameters"], protocolParametersBytes({ ...PARAMS, ...overrides }));
  return initHangzhou(ctx, { level: 1, timestamp: T1 }).context;
}

/** The protocol context of the block at `level` over the predecessor's context. */
function at(ctx: Context, level: number): S.ProtoContext {
  return S.ProtoContext.prepare(ctx, { level, predecessorTimestamp: T1 + level - 2, timestamp: T1 + level - 1, fitness: BigInt(level) });
}

/** A chain driven level by level: `block(f)` applies the next level (f, then the end-of-block voting step). */
class Chain {
  ctx: Context;
  level = 1;
  constructor(overrides: { [k: string]: Json } = {}) {
    this.ctx = activate(overrides);
  }
  /** Applies the next block; returns its protocol context after the voting step. */
  block(f?: (pc: S.ProtoContext) => void): S.ProtoContext {
    const pc = at(this.ctx, this.level + 1);
    f?.(pc);
    mayStartNewVotingPeriod(pc);
    this.ctx = pc.context;
    this.level++;
    return pc;
  }
  /** Applies blocks until `level` included. */
  until(level: number, f?: (pc: S.ProtoContext) => void): S.ProtoContext {
    let pc = this.head();
    while (this.level < level) pc = this.block(f);
    return pc;
  }
  /** The head's context as the RPCs read it. */
  head(): S.ProtoContext {
    return at(this.ctx, this.level);
  }
}

function proposals(source: string, period: number, list: string[]): Proposals {
  return { kind: "proposals", source, period, proposals: list };
}

function ballotOp(source: string, period: number, proposal: string, b: Ballot): BallotOperation {
  return { kind: "ballot", source, period, proposal, ballot: b };
}

/** Runs `f` and returns the JSON of the single error it throws. */
function errorOf(f: () => unknown): { [k: string]: Json } {
  try {
    f();
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    assert.is(e.trace.length, 1);
    return e.trace[0]!.toJson();
  }
  throw new Error("expected an error");
}

async function asyncErrorOf(f: () => Promise<unknown>): Promise<{ [k: string]: Json }> {
  try {
    await f();
  } catch (e) {
    if (!(e instanceof TezosError)) throw e;
    return e.trace[0]!.toJson();
  }
  throw new Error("expected an error");
}

function protocolKey(ctx: Context): string | undefined {
  const b = ctx.get(["protocol"]);
  return b === undefined ? undefined : b58encode(B58.protocolHash, b);
}

// ---------------------------------------------------------------------------------------------
// The tezt capture

test("the votes RPCs after a proposal in the block at level 2 answer what Octez answered", () => {
  const chain = new Chain({ blocks_per_cycle: 4, blocks_per_voting_period: 4 });
  const level1 = chain.head();
  assert.equal(currentVotingPeriodInfo(level1), { voting_period: { index: 0, kind: "proposal", start_position: 0 }, position: 0, remaining: 3 });
  const pc = chain.block((p) => applyProposals(p, proposals(B[0]!, 0, [DEMO])));
  assert.is(pc.level.level, 2);
  const captured = votesCapture.slice(0, 9);
  for (const e of captured) {
    const name = e.path.split("/").pop()!;
    const answer = votesRpc(chain.head(), name as (typeof VOTES_RPC_NAMES)[number]);
    if (name === "listings") {
      // The capture scrubs the key hashes: compare the rolls, and the hashes with the bootstrap set.
      const listings = answer as { pkh: string; rolls: number }[];
      assert.equal(listings.map((l) => ({ pkh: "[PUBLIC_KEY_HASH]", rolls: l.rolls })), e.response, name);
      assert.equal(listings.map((l) => l.pkh).sort(), [...B].sort());
    } else {
      assert.equal(answer, e.response, name);
    }
  }
  assert.equal(captured.map((e) => e.path.split("/").pop()).sort(), [...VOTES_RPC_NAMES].sort());
  // The block receipt of level 2 shows the same period information.
  assert.equal(currentVotingPeriodInfo(pc), captured.find((e) => e.path.endsWith("/current_period"))!.response);
});

test("the votes RPCs after three ballots in the block at level 5 answer what Octez answered", () => {
  const chain = new Chain({ blocks_per_cycle: 4, blocks_per_voting_period: 4 });
  chain.block((p) => applyProposals(p, proposals(B[0]!, 0, [DEMO])));
  chain.block();
  const last = chain.block();
  // The last block of the proposal period: its context holds the exploration period, its receipt the ending one.
  assert.equal(S.currentVotingPeriod(last), { index: 1, kind: "exploration", start_position: 4 });
  assert.equal(currentVotingPeriodInfo(last), { voting_period: { index: 0, kind: "proposal", start_position: 0 }, position: 3, remaining: 0 });
  assert.equal(votesRpc(chain.head(), "successor_period"), { voting_period: { index: 1, kind: "exploration", start_position: 4 }, position: 0, remaining: 3 });
  chain.block((p) => {
    applyBallot(p, ballotOp(B[0]!, 1, DEMO, "yay"));
    applyBallot(p, ballotOp(B[1]!, 1, DEMO, "nay"));
    applyBallot(p, ballotOp(B[2]!, 1, DEMO, "pass"));
  });
  assert.is(chain.level, 5);
  const captured = votesCapture.slice(9);
  assert.is(captured.length, 9);
  const pcHead = chain.head();
  for (const e of captured) {
    const name = e.path.split("/").pop()! as (typeof VOTES_RPC_NAMES)[number];
    const answer = votesRpc(pcHead, name);
    if (name === "listings") {
      assert.equal((answer as { rolls: number }[]).map((l) => ({ pkh: "[PUBLIC_KEY_HASH]", rolls: l.rolls })), e.response);
    } else if (name === "ballot_list") {
      // Octez lists ballots in context key order: nay (bootstrap2), pass (bootstrap3), yay (bootstrap1).
      const list = answer as { pkh: string; ballot: string }[];
      assert.equal(list.map((b) => ({ pkh: "[PUBLIC_KEY_HASH]", ballot: b.ballot })), e.response);
      assert.equal(list.map((b) => b.pkh), [B[1], B[2], B[0]]);
    } else {
      assert.equal(answer, e.response, name);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Periods without proposals (sandbox: 64 blocks)

test("without proposals, periods of 64 blocks follow each other as proposal periods with fresh listings", () => {
  const chain = new Chain();
  // bootstrap5 loses 100 rolls at level 2 (cycle 0, while it is active): the listings keep 500 until the period ends.
  chain.block((pc) => S.removeAmount(pc, B[4]!, 100n * 8_000_000_000n));
  const pc63 = chain.until(63);
  assert.equal(currentVotingPeriodInfo(pc63), { voting_period: { index: 0, kind: "proposal", start_position: 0 }, position: 62, remaining: 1 });
  assert.is(S.votingPower(pc63, B[4]!), 500);
  assert.is(S.listingsSize(pc63), 2500);
  const pc64 = chain.block();
  assert.equal(currentVotingPeriodInfo(pc64), { voting_period: { index: 0, kind: "proposal", start_position: 0 }, position: 63, remaining: 0 });
  assert.equal(S.currentVotingPeriod(pc64), { index: 1, kind: "proposal", start_position: 64 });
  assert.is(S.predPeriodKind(pc64), "proposal");
  assert.is(S.votingPower(pc64, B[4]!), 400);
  assert.is(S.listingsSize(pc64), 2400);
  assert.equal(successorPeriod(pc64), { voting_period: { index: 1, kind: "proposal", start_position: 64 }, position: 0, remaining: 63 });
  const pc65 = chain.block();
  assert.equal(currentVotingPeriodInfo(pc65), { voting_period: { index: 1, kind: "proposal", start_position: 64 }, position: 0, remaining: 63 });
  const pc128 = chain.until(128);
  assert.equal(currentVotingPeriodInfo(pc128), { voting_period: { index: 1, kind: "proposal", start_position: 64 }, position: 63, remaining: 0 });
  assert.equal(S.currentVotingPeriod(pc128), { index: 2, kind: "proposal", start_position: 128 });
  assert.is(S.participationEma(pc128), 7000);
  assert.is(protocolKey(chain.ctx), undefined);
});

// ---------------------------------------------------------------------------------------------
// A full amendment

test("a proposal goes through exploration, cooldown, promotion and adoption and becomes the next protocol", () => {
  const chain = new Chain();
  // Period 0: bootstrap1 and 2 propose Ithaca (1000 rolls), bootstrap3 Granada (500).
  chain.block((pc) => {
    applyProposals(pc, proposals(B[0]!, 0, [ITHACA]));
    applyProposals(pc, proposals(B[1]!, 0, [ITHACA, GRANADA]));
    applyProposals(pc, proposals(B[2]!, 0, [GRANADA]));
  });
  // Octez's map of proposals prints in hash byte order: Ithaca (0x84…) before Granada (0xcb…).
  assert.ok(toHex(b58decode(B58.protocolHash, ITHACA)) < toHex(b58decode(B58.protocolHash, GRANADA)));
  assert.equal(votesRpc(chain.head(), "proposals"), [
    [ITHACA, 1000],
    [GRANADA, 1000],
  ]);
  chain.block((pc) => applyProposals(pc, proposals(B[3]!, 0, [ITHACA])));
  assert.equal(votesRpc(chain.head(), "proposals"), [
    [ITHACA, 1500],
    [GRANADA, 1000],
  ]);
  const end0 = chain.until(64);
  assert.equal(S.currentVotingPeriod(end0), { index: 1, kind: "exploration", start_position: 64 });
  assert.is(S.findCurrentProposal(end0), ITHACA);
  assert.equal(S.getProposals(end0), []);
  assert.is(S.recordedProposalCount(end0, B[1]!), 0);

  // Exploration: 4 yays, 1 nay — 2000 ≥ ⌊8 × 2500 / 10⌋, participation 100%.
  chain.block((pc) => {
    for (let i = 0; i < 4; i++) applyBallot(pc, ballotOp(B[i]!, 1, ITHACA, "yay"));
    applyBallot(pc, ballotOp(B[4]!, 1, ITHACA, "nay"));
  });
  assert.equal(votesRpc(chain.head(), "ballots"), { yay: 2000, nay: 500, pass: 0 });
  const end1 = chain.until(128);
  assert.equal(currentVotingPeriodInfo(end1), { voting_period: { index: 1, kind: "exploration", start_position: 64 }, position: 63, remaining: 0 });
  assert.equal(S.currentVotingPeriod(end1), { index: 2, kind: "cooldown", start_position: 128 });
  assert.is(S.participationEma(end1), 7600);
  assert.equal(S.getBallotList(end1), []);
  assert.is(votesRpc(end1, "current_quorum"), 2000 + 3800);

  const end2 = chain.until(192);
  assert.equal(S.currentVotingPeriod(end2), { index: 3, kind: "promotion", start_position: 192 });
  assert.is(S.predPeriodKind(end2), "cooldown");

  // Promotion: 4 yays, 1 pass.
  chain.block((pc) => {
    for (let i = 0; i < 4; i++) applyBallot(pc, ballotOp(B[i]!, 3, ITHACA, "yay"));
    applyBallot(pc, ballotOp(B[4]!, 3, ITHACA, "pass"));
  });
  const end3 = chain.until(256);
  assert.equal(S.currentVotingPeriod(end3), { index: 4, kind: "adoption", start_position: 256 });
  assert.is(S.participationEma(end3), 8080);
  assert.is(protocolKey(chain.ctx), undefined);

  const pc319 = chain.until(319);
  assert.equal(currentVotingPeriodInfo(pc319), { voting_period: { index: 4, kind: "adoption", start_position: 256 }, position: 62, remaining: 1 });
  const end4 = chain.block();
  assert.is(protocolKey(end4.context), ITHACA);
  assert.equal(S.currentVotingPeriod(end4), { index: 5, kind: "proposal", start_position: 320 });
  assert.is(S.findCurrentProposal(end4), undefined);
  assert.is(votesRpc(end4, "current_proposal"), null);
  assert.equal(currentVotingPeriodInfo(end4), { voting_period: { index: 4, kind: "adoption", start_position: 256 }, position: 63, remaining: 0 });
});

// ---------------------------------------------------------------------------------------------
// Failures that reset to a proposal period

/** A chain in exploration (period 1 from level 65) on `proposal`. */
function inExploration(overrides: { [k: string]: Json } = {}): Chain {
  const chain = new Chain(overrides);
  chain.block((pc) => applyProposals(pc, proposals(B[0]!, 0, [ITHACA])));
  chain.until(64);
  return chain;
}

test("an exploration below the quorum drops the proposal and lowers the participation EMA", () => {
  const chain = inExploration();
  chain.block((pc) => applyBallot(pc, ballotOp(B[0]!, 1, ITHACA, "yay")));
  const end = chain.until(128);
  // participation 2000 < quorum 5500; EMA ⌊(8 × 7000 + 2 × 2000) / 10⌋.
  assert.equal(S.currentVotingPeriod(end), { index: 2, kind: "proposal", start_position: 128 });
  assert.is(S.predPeriodKind(end), "exploration");
  assert.is(S.participationEma(end), 6000);
  assert.is(S.findCurrentProposal(end), undefined);
  assert.is(S.currentQuorum(end), 5000);
});

test("an exploration without supermajority drops the proposal", () => {
  const chain = inExploration();
  chain.block((pc) => {
    for (let i = 0; i < 3; i++) applyBallot(pc, ballotOp(B[i]!, 1, ITHACA, "yay"));
    applyBallot(pc, ballotOp(B[3]!, 1, ITHACA, "nay"));
    applyBallot(pc, ballotOp(B[4]!, 1, ITHACA, "nay"));
  });
  const end = chain.until(128);
  assert.equal(S.currentVotingPeriod(end), { index: 2, kind: "proposal", start_position: 128 });
  assert.is(S.participationEma(end), 7600);
  assert.is(S.findCurrentProposal(end), undefined);
});

test("a promotion that fails resets to a proposal period and activates nothing", () => {
  const chain = inExploration();
  chain.block((pc) => {
    for (let i = 0; i < 5; i++) applyBallot(pc, ballotOp(B[i]!, 1, ITHACA, "yay"));
  });
  chain.until(192);
  chain.block((pc) => {
    applyBallot(pc, ballotOp(B[0]!, 3, ITHACA, "yay"));
    applyBallot(pc, ballotOp(B[1]!, 3, ITHACA, "nay"));
  });
  const end = chain.until(256);
  assert.equal(S.currentVotingPeriod(end), { index: 4, kind: "proposal", start_position: 256 });
  assert.is(S.predPeriodKind(end), "promotion");
  assert.is(S.findCurrentProposal(end), undefined);
  assert.is(protocolKey(chain.ctx), undefined);
});

test("a tie between the top proposals, or a winner below min_proposal_quorum, starts another proposal period", () => {
  const tie = new Chain();
  tie.block((pc) => {
    applyProposals(pc, proposals(B[0]!, 0, [ITHACA]));
    applyProposals(pc, proposals(B[1]!, 0, [GRANADA]));
  });
  const endTie = tie.until(64);
  assert.equal(S.currentVotingPeriod(endTie), { index: 1, kind: "proposal", start_position: 64 });
  assert.equal(S.getProposals(endTie), []);

  // min_proposal_quorum 21%: 525 of 2500 rolls needed; one delegate (500) is not enough, two are.
  const low = new Chain({ min_proposal_quorum: 2100 });
  low.block((pc) => applyProposals(pc, proposals(B[0]!, 0, [ITHACA])));
  assert.equal(S.currentVotingPeriod(low.until(64)), { index: 1, kind: "proposal", start_position: 64 });
  low.block((pc) => {
    applyProposals(pc, proposals(B[0]!, 1, [ITHACA]));
    applyProposals(pc, proposals(B[1]!, 1, [ITHACA]));
  });
  assert.equal(S.currentVotingPeriod(low.until(128)), { index: 2, kind: "exploration", start_position: 128 });
});

test("approval and the participation EMA follow Octez's integer formulas", () => {
  // yays must reach ⌊8 × (yay + nay) / 10⌋: 7 of 9 casted pass (⌊72/10⌋ = 7), 6 of 9 do not.
  assert.equal(approvalAndParticipationEma({ yay: 7, nay: 2, pass: 1 }, 10, 7000, 5500), { approval: true, participationEma: 7600 });
  assert.equal(approvalAndParticipationEma({ yay: 6, nay: 3, pass: 0 }, 10, 7000, 5500), { approval: false, participationEma: 7400 });
  // Participation is ⌊votes × 10000 / rolls⌋ and must reach the quorum exactly.
  assert.equal(approvalAndParticipationEma({ yay: 11, nay: 0, pass: 0 }, 20, 5000, 5500), { approval: true, participationEma: 5100 });
  assert.equal(approvalAndParticipationEma({ yay: 10, nay: 0, pass: 0 }, 20, 5000, 5500), { approval: false, participationEma: 5000 });
  assert.throws(() => approvalAndParticipationEma({ yay: 0, nay: 0, pass: 0 }, 0, 5000, 5500), (e: unknown) => e instanceof RangeError);
});

// ---------------------------------------------------------------------------------------------
// Errors

test("a voting operation for another period is operation.wrong_voting_period with both indexes", () => {
  const pc = new Chain().block();
  const before = pc.context;
  assert.equal(errorOf(() => applyProposals(pc, proposals(B[0]!, 1, [ITHACA]))), {
    kind: "temporary",
    id: PREFIX + "operation.wrong_voting_period",
    current_index: 0,
    provided_index: 1,
  });
  assert.equal(errorOf(() => applyBallot(pc, ballotOp(B[0]!, -1, ITHACA, "yay"))), {
    kind: "temporary",
    id: PREFIX + "operation.wrong_voting_period",
    current_index: 0,
    provided_index: -1,
  });
  assert.is(pc.context, before);
});

test("proposals are checked in Octez's order: empty, outside a proposal period, not in the listings", () => {
  const pc = new Chain().block();
  assert.equal(errorOf(() => applyProposals(pc, proposals(ACTIVATOR, 0, []))), { kind: "branch", id: PREFIX + "empty_proposal" });
  assert.equal(errorOf(() => applyProposals(pc, proposals(ACTIVATOR, 0, [ITHACA]))), { kind: "branch", id: PREFIX + "unauthorized_proposal" });
  const exploring = inExploration().block();
  assert.equal(errorOf(() => applyProposals(exploring, proposals(ACTIVATOR, 1, [ITHACA]))), { kind: "branch", id: PREFIX + "unexpected_proposal" });
  assert.equal(errorOf(() => applyProposals(exploring, proposals(B[0]!, 1, []))), { kind: "branch", id: PREFIX + "empty_proposal" });
});

test("a delegate may submit 20 proposals per period, counted across operations, and a failing one writes nothing", () => {
  const pc = new Chain().block();
  const hashes = Array.from({ length: 21 }, (_, i) => b58encode(B58.protocolHash, new Uint8Array(32).fill(i + 1)));
  assert.equal(errorOf(() => applyProposals(pc, proposals(B[0]!, 0, hashes))), { kind: "branch", id: PREFIX + "too_many_proposals" });
  applyProposals(pc, proposals(B[0]!, 0, hashes.slice(0, 15)));
  const before = pc.context;
  assert.equal(errorOf(() => applyProposals(pc, proposals(B[0]!, 0, hashes.slice(15, 21)))), { kind: "branch", id: PREFIX + "too_many_proposals" });
  assert.is(pc.context, before);
  applyProposals(pc, proposals(B[0]!, 0, hashes.slice(15, 20)));
  assert.is(S.recordedProposalCount(pc, B[0]!), 20);
  assert.is(S.getProposals(pc).length, 20);
  assert.equal(errorOf(() => applyProposals(pc, proposals(B[0]!, 0, [ITHACA]))), { kind: "branch", id: PREFIX + "too_many_proposals" });
  // Another delegate still can.
  applyProposals(pc, proposals(B[1]!, 0, [hashes[0]!]));
  assert.equal(S.getProposals(pc)[0], [hashes[0], 1000]);
});

test("the same proposal twice counts twice against the limit but supports once", () => {
  const pc = new Chain().block();
  applyProposals(pc, proposals(B[0]!, 0, [ITHACA, ITHACA]));
  assert.is(S.recordedProposalCount(pc, B[0]!), 2);
  assert.equal(S.getProposals(pc), [[ITHACA, 500]]);
});

test("ballots are checked in Octez's order: period kind, proposal, already voted, listings", () => {
  const proposalPeriod = new Chain().block();
  assert.equal(errorOf(() => applyBallot(proposalPeriod, ballotOp(B[0]!, 0, ITHACA, "yay"))), { kind: "branch", id: PREFIX + "unexpected_ballot" });
  const chain = inExploration();
  const pc = chain.block();
  assert.equal(errorOf(() => applyBallot(pc, ballotOp(ACTIVATOR, 1, GRANADA, "yay"))), { kind: "branch", id: PREFIX + "invalid_proposal" });
  assert.equal(errorOf(() => applyBallot(pc, ballotOp(ACTIVATOR, 1, ITHACA, "yay"))), { kind: "branch", id: PREFIX + "unauthorized_ballot" });
  applyBallot(pc, ballotOp(B[0]!, 1, ITHACA, "nay"));
  const before = pc.context;
  assert.equal(errorOf(() => applyBallot(pc, ballotOp(B[0]!, 1, ITHACA, "yay"))), { kind: "branch", id: PREFIX + "unauthorized_ballot" });
  assert.is(pc.context, before);
  assert.equal(S.getBallotList(pc), [{ pkh: B[0], ballot: "nay" }]);
  // Cooldown takes no ballots either.
  for (let i = 1; i < 5; i++) applyBallot(pc, ballotOp(B[i]!, 1, ITHACA, "yay"));
  chain.ctx = pc.context;
  const cooldown = chain.until(129);
  assert.is(S.currentVotingPeriod(cooldown).kind, "cooldown");
  assert.equal(errorOf(() => applyBallot(cooldown, ballotOp(B[0]!, 2, ITHACA, "yay"))), { kind: "branch", id: PREFIX + "unexpected_ballot" });
});

test("a voting operation must be signed by its source's revealed key under the generic watermark", async () => {
  const branch = "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXb";
  const chainId = new Uint8Array(4);
  const pc = new Chain().block();
  const content = proposals(B[0]!, 0, [DEMO]);
  const bytes = encodeBinary(unsignedOperation, { branch, contents: [content] });
  const good = formatSignature(await sign(parseSecretKey(SECRET[0]!), bytes, genericWatermark()));
  const wrongKey = formatSignature(await sign(parseSecretKey(SECRET[1]!), bytes, genericWatermark()));
  const endorsementMark = formatSignature(await sign(parseSecretKey(SECRET[0]!), bytes, Uint8Array.of(2, 0, 0, 0, 0)));
  assert.is(votingOperationSigner(pc, content), S.delegatePublicKey(pc, B[0]!));
  assert.equal(await asyncErrorOf(() => applyVotingOperation(pc, chainId, { branch }, content)), { kind: "permanent", id: PREFIX + "operation.missing_signature" });
  assert.equal(await asyncErrorOf(() => applyVotingOperation(pc, chainId, { branch, signature: wrongKey }, content)), {
    kind: "permanent",
    id: PREFIX + "operation.invalid_signature",
  });
  assert.equal(await asyncErrorOf(() => applyVotingOperation(pc, chainId, { branch, signature: endorsementMark }, content)), {
    kind: "permanent",
    id: PREFIX + "operation.invalid_signature",
  });
  // The signature is checked before the period: a well-signed operation for period 7 is wrong_voting_period.
  const late = proposals(B[0]!, 7, [DEMO]);
  const lateSig = formatSignature(await sign(parseSecretKey(SECRET[0]!), encodeBinary(unsignedOperation, { branch, contents: [late] }), genericWatermark()));
  assert.is((await asyncErrorOf(() => applyVotingOperation(pc, chainId, { branch, signature: lateSig }, late)))["id"], PREFIX + "operation.wrong_voting_period");
  assert.equal(await applyVotingOperation(pc, chainId, { branch, signature: good }, content), { kind: "proposals" });
  assert.equal(S.getProposals(pc), [[DEMO, 500]]);
  // A source that is not a delegate with a revealed key.
  assert.is(errorOf(() => votingOperationSigner(pc, proposals(ACTIVATOR, 0, [DEMO])))["id"], PREFIX + "contract.manager.unregistered_delegate");
});

test("a ballot operation signed by its source is applied with an empty receipt", async () => {
  const branch = "BKpbfCvh777DQHnXjU2sqHvVUNZ7dBAdqEfKkdw8EGSkD9LSYXb";
  const pc = inExploration().block();
  const content = ballotOp(B[2]!, 1, ITHACA, "pass");
  const sig = formatSignature(await sign(parseSecretKey(SECRET[2]!), encodeBinary(unsignedOperation, { branch, contents: [content] }), genericWatermark()));
  assert.equal(await applyVotingOperation(pc, new Uint8Array(4), { branch, signature: sig }, content), { kind: "ballot" });
  assert.equal(S.getBallots(pc), { yay: 0, nay: 0, pass: 500 });
});

test.run();
