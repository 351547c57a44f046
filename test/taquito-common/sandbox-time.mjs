/**
 * The sandbox clock with each pinned Taquito (issue 16): a contract whose entrypoint fails
 * unless `NOW` has reached the time in its storage, an hour ahead. Taquito's call is refused
 * (its simulation is rejected by the script) until `POST /sandbox/time/increase` moves the
 * clock two hours forward: the shared node bakes in auto mode, so the move bakes one block at the
 * moved time before it answers (Hangzhou's NOW is the predecessor's timestamp plus the minimal
 * block delay). Then the same call is included, applied.
 * The clock of the shared node is only moved forward, which the other files do not mind.
 */
import { explained, originatorOf, rejection } from "./contracts-michelson.mjs";
import { control } from "./helpers.mjs";

/** `parameter unit; storage timestamp`: fails unless NOW is at or past the stored time. */
const NOT_BEFORE = "parameter unit; storage timestamp; code { CDR; DUP; NOW; COMPARE; GE; IF {} {FAIL}; NIL operation; PAIR }";

/** Defines and runs this scenario with one Taquito version's modules. */
export default function scenario({ suite, assert, sandbox, version }) {
  const { BOOTSTRAP, bounded, toolkit } = sandbox;
  const test = suite(`Taquito ${version} sandbox time`);
  const originator = originatorOf(sandbox, BOOTSTRAP[3], "sandbox time originator");

  test("a call checking NOW is refused before time/increase and applied after it", bounded("sandbox time", explained(async () => {
    const account = await originator();
    const tezos = await toolkit(account.sk);
    const clock = await control("GET", "/sandbox/time");
    const head = await tezos.rpc.getBlockHeader();
    const notBefore = Math.max(Date.parse(clock.timestamp), Date.parse(head.timestamp)) / 1000 + 3600;
    const origination = await tezos.contract.originate({ code: NOT_BEFORE, init: { int: String(notBefore) } });
    await origination.confirmation(1);
    const address = origination.contractAddress;
    const call = () => tezos.contract.transfer({ to: address, amount: 0, parameter: { entrypoint: "default", value: { prim: "Unit" } } });

    const early = await rejection(call());
    assert.ok(early !== undefined, "the call is refused while NOW is before the stored time");
    assert.match(JSON.stringify(early.errors ?? early.message), /script_rejected/);

    const before = await tezos.rpc.getBlockHeader();
    const moved = await control("POST", "/sandbox/time/increase", { seconds: 7200 });
    assert.is(moved.offset, clock.offset + 7200);
    assert.ok(Date.parse(moved.timestamp) / 1000 > notBefore, `the clock reads ${moved.timestamp}`);
    const bakedHeader = await tezos.rpc.getBlockHeader();
    assert.is(bakedHeader.level, before.level + 1, "the move baked one block before it answered");
    assert.ok(Date.parse(bakedHeader.timestamp) / 1000 >= Date.parse(moved.timestamp) / 1000, `the block baked by the move is at ${bakedHeader.timestamp}`);

    const op = await call();
    const level = await op.confirmation(1);
    assert.is(op.status, "applied");
    const block = await tezos.rpc.getBlock({ block: String(level) });
    const included = block.operations[3].find((o) => o.hash === op.hash);
    assert.is(included.contents[0].metadata.operation_result.status, "applied");
    assert.ok(Date.parse(block.header.timestamp) / 1000 > notBefore, `included at ${block.header.timestamp}`);
  })));

  test.run();
}
