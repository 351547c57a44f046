/**
 * The 21 on-chain scenarios of the Octez python tests (reference/michelson/onchain-scenarios.json:
 * test_contract_onchain_opcodes.py, test_contract_macros.py, test_contract.py), replayed step by
 * step on a sandbox chain: originations, transfers (also from manager.tz through `%do`), bakes by
 * the named baker, and every expectation of the scenario — storages as the client prints them,
 * balances and balance changes, delegates, originated contracts, entrypoint types, script hashes,
 * TZIP-4 views and the errors of operations the client refuses after simulating them.
 *
 * Expected errors are regular expressions on the client's stderr; they are checked here on the
 * error ids of the simulation's trace (the text each id prints as, per Octez's error registrations):
 * see ERROR_IDS. "At line L characters a to b" is a position in the script as the client prints it
 * back (macros folded, its own layout); it is checked as the failing macro of the source file at
 * the script_rejected location, with the same width.
 */
import { WorkBudget } from "../../lib/errors/budget.ts";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { formatSignature } from "../../lib/crypto/keys.ts";
import { sign } from "../../lib/crypto/sign.ts";
import { packData } from "../../lib/michelson/data/pack.ts";
import { parseData } from "../../lib/michelson/data/parse-data.ts";
import { parseTy } from "../../lib/michelson/data/parse-type.ts";
import { parseAndExpand, printMicheline } from "../../lib/michelson/text/mod.ts";
import { helperContextOn } from "../../lib/rpc/services/hangzhou/scripts-helpers.ts";
import { runTzip4View } from "../../lib/rpc/services/hangzhou/scripts-view.ts";
import { mutezOf, ScenarioClient, SimulationFailed } from "./scenario-client.ts";

const DATA = JSON.parse(readFileSync(new URL("../vectors/michelson/onchain-scenarios.json", import.meta.url), "utf8"));

/** The error id each expected stderr pattern stands for (the title or message Octez prints for it). */
const ERROR_IDS: [RegExp, string][] = [
  [/script reached FAILWITH instruction/, "michelson_v1.script_rejected"],
  [/Unexpected forged value/, "michelson_v1.unexpected_forged_value"],
  [/Gas limit exceeded during typechecking or execution/, "gas_exhausted.operation"],
  [/Internal operation replay attempt/, "internal_operation_replay"],
  [/Transaction of 0ꜩ towards a contract without code are forbidden/, "contract.empty_transaction"],
  [/Contract KT1\w+ does not exist/, "contract.non_existing_contract"],
  [/At line \d+ characters \d+ to \d+/, "michelson_v1.script_rejected"],
];

type Step = Record<string, any>;

/** Runs one scenario; returns the number of checks made. */
async function runScenario(steps: Step[]): Promise<number> {
  const c = await ScenarioClient.create();
  const vars = new Map<string, string>();
  const scripts = new Map<string, ReturnType<ScenarioClient["readScript"]>>();
  let checks = 0;
  let before = new Map<string, bigint>();
  let now = "";

  const subst = (s: string): string =>
    s
      .replace(/\{addr:([A-Za-z0-9_]+)\}/g, (_, a) => c.address(a))
      .replace(/\{([A-Za-z_][A-Za-z0-9_]*)(\+(\d+))?\}/g, (m, name, _p, plus) => {
        const v = vars.get(name);
        if (v === undefined) return m;
        return plus === undefined ? v : String(BigInt(v) + BigInt(plus));
      });
  const snapshot = () => {
    before = new Map([...c.aliases].map(([a, addr]) => [a, c.balance(addr)]));
  };
  const expectError = async (pattern: string, f: () => Promise<void>, script?: ReturnType<ScenarioClient["readScript"]>) => {
    try {
      await f();
    } catch (e) {
      if (!(e instanceof SimulationFailed)) throw e;
      const id = ERROR_IDS.find(([re]) => re.test(pattern) || re.source === pattern)?.[1];
      assert.ok(id !== undefined, `no error id for ${pattern}`);
      assert.ok(e.ids.includes(id!), `expected ${id} (${pattern}) in ${e.ids.join(", ")}`);
      const m = /Contract (KT1\w+) does not exist/.exec(pattern);
      if (m) assert.ok(e.errors.some((x: any) => x.contract === m[1]), "the missing contract is named");
      const z = /\((tz1\w+)\)/.exec(pattern);
      if (z && id === "contract.empty_transaction") assert.ok(e.errors.some((x: any) => x.contract === z[1]), "the implicit account is named");
      const at = /At line (\d+) characters (\d+) to (\d+)/.exec(pattern);
      if (at && script) {
        // The client prints the position in the script as it prints it back (macros folded, its own
        // layout); here: the failing instruction of the source file has that width and is a failing macro.
        const rej = e.errors.find((x: any) => String(x.id).endsWith("script_rejected")) as any;
        const src = ScenarioClient.sourceOf(script, rej.location);
        assert.ok(src !== undefined, "the failing location is in the script");
        const token = script.text.slice(src!.start.point, src!.stop.point);
        assert.is(token.length, Number(at[3]) - Number(at[2]), `width of ${token}`);
        assert.match(token, /^(FAIL|ASSERT)/);
      }
      checks++;
      return;
    }
    assert.unreachable(`expected error ${pattern}`);
  };
  const checkStorage = (contract: string, value: string) => {
    assert.is(c.storage(subst(contract)), subst(value).replace("{now}", now), `storage of ${contract}`);
    checks++;
  };

  for (const st of steps) {
    try {
      await runStep(st);
    } catch (e) {
      if (e instanceof Error) e.message = `step ${steps.indexOf(st)} ${JSON.stringify(st).slice(0, 200)}: ${e.message}`;
      throw e;
    }
  }
  return checks;

  async function runStep(st: Step): Promise<void> {
    switch (st.op) {
      case "test":
      case "note":
        break;
      case "gen_key":
        c.genKey(st.alias);
        break;
      case "originate": {
        const script = c.readScript(st.file !== undefined ? { file: st.file } : { script: st.script });
        scripts.set(st.alias, script);
        const run = () => c.originate(st.alias, script.code, subst(st.storage ?? "Unit"), st.balance_tez, st.sender, st.burn_cap, st.expect_error !== undefined);
        if (st.expect_error !== undefined) await expectError(st.expect_error, run);
        else await run();
        break;
      }
      case "transfer":
      case "call": {
        snapshot();
        // Fee: the one the test subtracts (client-computed) when the following checks name it, else 0.
        const i = steps.indexOf(st);
        let fee: bigint | undefined;
        for (const n of steps.slice(i + 1)) {
          if (n.op === "transfer" || n.op === "call" || n.op === "test") break;
          if (n.op === "expect_balance_change" && n.minus_fee_tez !== undefined) fee = mutezOf(n.minus_fee_tez);
        }
        const run = () =>
          c.transfer({
            from: subst(st.from),
            to: subst(st.to),
            amountTez: st.amount_tez ?? "0",
            ...(st.arg !== undefined ? { arg: subst(st.arg) } : {}),
            ...(st.entrypoint !== undefined ? { entrypoint: st.entrypoint } : {}),
            ...(st.gas_limit !== undefined ? { gasLimit: BigInt(st.gas_limit) } : {}),
            ...(fee !== undefined ? { fee } : {}),
            ...(st.burn_cap !== undefined ? { burnCap: st.burn_cap } : {}),
            expectFailure: st.expect_error !== undefined,
          });
        if (st.expect_error !== undefined) await expectError(st.expect_error, run, scripts.get(st.to));
        else await run();
        break;
      }
      case "bake": {
        const block = await c.bake(st.baker ?? "bootstrap1");
        // NOW in a block: its predecessor's timestamp + minimal_block_delay (what protocol.get_now computes).
        const pred = c.h.chain.block(block.header.predecessor)!;
        now = new Date((pred.header.timestamp + Number(c.pc().constants.minimal_block_delay)) * 1000).toISOString().replace(".000Z", "Z");
        break;
      }
      case "expect_storage":
        checkStorage(st.contract, st.value);
        break;
      case "expect_storage_matches":
        assert.match(c.storage(subst(st.contract)), new RegExp(st.regex));
        checks++;
        break;
      case "expect_balance":
        assert.is(c.balance(subst(st.contract)), mutezOf(st.tez), `balance of ${st.contract}`);
        checks++;
        break;
      case "expect_balance_change": {
        const delta = BigInt(st.mutez_delta.replace(/^\+/, ""));
        const fee = st.minus_fee_tez === undefined ? 0n : mutezOf(st.minus_fee_tez);
        assert.is(c.balance(st.contract) - before.get(st.contract)!, delta - fee, `balance change of ${st.contract}`);
        checks++;
        break;
      }
      case "expect_delegate":
        assert.is(c.delegate(subst(st.contract)), st.delegate, `delegate of ${st.contract}`);
        checks++;
        break;
      case "set_delegate":
        await c.setContractDelegate(c.address(st.contract), c.address(st.delegate));
        await c.bake(st.baker ?? "bootstrap5");
        break;
      case "withdraw_delegate":
        await c.setContractDelegate(c.address(st.contract), undefined);
        await c.bake(st.baker ?? "bootstrap5");
        break;
      case "read_storage": {
        const s = c.storage(subst(st.contract));
        vars.set(st.as, st.as === "addr" ? s.split(/\s+/)[1]! : s);
        break;
      }
      case "read_level":
        vars.set(st.as, String(c.h.chain.head.header.level));
        break;
      case "capture_originated": {
        const o = c.lastOriginated();
        assert.is(o.length, 1, "one contract originated by the call");
        vars.set(st.as, o[0]!);
        break;
      }
      case "expect_entrypoint_type": {
        const t = c.entrypointType(subst(st.contract), st.entrypoint);
        assert.ok(t !== undefined, `entrypoint ${st.entrypoint}`);
        assert.is(printMicheline(t!), st.type);
        checks++;
        break;
      }
      case "expect_script_hash":
        assert.is(c.scriptHash(st.contract), st.hash);
        checks++;
        break;
      case "pack": {
        vars.set("chain_id", c.h.chain.chainId);
        const pc = c.pc();
        pc.setGasUnlimited();
        const sc = helperContextOn(pc, c.h.chain.chainId);
        const ty = parseTy(parseAndExpand(st.type, { kind: "expression" }));
        const v = parseData(sc, ty, parseAndExpand(subst(st.data), { kind: "expression" }));
        vars.set(st.as, "0x" + Array.from(packData(ty, v), (b) => b.toString(16).padStart(2, "0")).join(""));
        break;
      }
      case "sign_bytes": {
        const bytes = Uint8Array.from(vars.get(st.bytes.replace(/[{}]/g, ""))!.slice(2).match(/../g)!, (h) => parseInt(h, 16));
        const acc = c.keys.get(c.address(st.signer))!;
        vars.set(st.as, formatSignature(await sign(acc.sk, bytes, new Uint8Array())));
        break;
      }
      case "run_tzip4_view": {
        const out = await runTzip4View(c.pc(), {
          contract: c.address(st.contract),
          entrypoint: st.entrypoint,
          input: parseAndExpand(st.input, { kind: "expression" }),
          chain_id: c.h.chain.chainId,
          unparsing_mode: "Readable",
        }, new WorkBudget());
        assert.is(printMicheline(out), st.expected_result);
        checks++;
        break;
      }
      case "execution_ordering": {
        await c.originate("storer", c.readScript({ file: "mini_scenarios/execution_order_storer.tz" }).code, '""', "0", "bootstrap1", "10");
        await c.bake("bootstrap3");
        const deploy = async (tree: unknown): Promise<string> => {
          if (typeof tree === "string") {
            const alias = `appender_${tree}`;
            await c.originate(alias, c.readScript({ file: "mini_scenarios/execution_order_appender.tz" }).code, `Pair "${c.address("storer")}" "${tree}"`, "0", "bootstrap1", "10");
            await c.bake("bootstrap3");
            return c.address(alias);
          }
          const children: string[] = [];
          for (const t of tree as unknown[]) children.push(await deploy(t));
          const alias = `caller_${c.aliases.size}`;
          await c.originate(alias, c.readScript({ file: "mini_scenarios/execution_order_caller.tz" }).code, `{ ${children.map((x) => `"${x}"`).join(" ; ")} }`, "0", "bootstrap1", "10");
          await c.bake("bootstrap3");
          return c.address(alias);
        };
        const root = await deploy(st.tree);
        await c.transfer({ from: "bootstrap2", to: root, amountTez: "0", burnCap: "5" });
        await c.bake("bootstrap3");
        checkStorage("storer", st.expected_storer_storage);
        break;
      }
      default:
        throw new Error(`unknown step ${st.op}`);
    }
  }
}

const S = suite("hangzhou on-chain scenarios");
for (const sc of DATA.scenarios as { name: string; class?: string; steps: Step[] }[]) {
  S(`the python scenario "${sc.name}" replays with every expected value`, async () => {
    const n = await runScenario(sc.steps);
    const expected = sc.steps.filter((s) => s.op.startsWith("expect_") || s.op === "run_tzip4_view" || s.op === "execution_ordering" || s.expect_error !== undefined).length;
    assert.is(n, expected, "every expectation was checked");
  });
}
S.run();
