import { test } from "uvu";
import * as assert from "uvu/assert";
import { createNode, type TezosNode } from "../../mod.ts";
import { toHex } from "../../lib/encoding/hex.ts";
import { forgeActivation, protocolParametersBytes } from "../../lib/protocols/genesis/activation.ts";
import { shellHeader } from "../../lib/encoding/block-header.ts";

const ACTIVATOR = "edsk31vznjHSSpGExDMHYASz45VZqXN4DPxvsa4hAyY8dHM28cZzp6";
const BOOTSTRAP1 = "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh";
const GENESIS_PROTOCOL = "ProtoGenesisGenesisGenesisGenesisGenesisGenesk612im";
const HANGZHOU = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
const ZERO_SIG = "sigMzJ4GVAvXEd2RjsKGfG2H9QvqTSKCZsuB2KiHbZRGFz72XgF6KaKADznh674fQgBatxw3xdHqTtMHUZAGRprxy64wg1aq";
const PARAMETERS = { hello: "world" };

async function call(node: TezosNode, method: string, path: string, body?: unknown) {
  const res = await node.fetch(
    new Request(`http://localhost${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.startsWith("application/json") ?? false;
  return { status: res.status, text, json: isJson ? JSON.parse(text) : undefined };
}

/** What tezos-client does for `activate protocol … with fitness 1 and key activator`: preapply, sign, inject. */
async function activate(node: TezosNode, protocol: string, key: string, query = "") {
  const content = { command: "activate", hash: protocol, fitness: ["00", "0000000000000001"], protocol_parameters: toHex(protocolParametersBytes(PARAMETERS)) };
  const pre = await call(node, "POST", "/chains/main/blocks/genesis/helpers/preapply/block?timestamp=2018-06-30T16:07:33Z", {
    protocol_data: { protocol: GENESIS_PROTOCOL, content, signature: ZERO_SIG },
    operations: [],
  });
  if (pre.status !== 200) return { pre, injected: undefined };
  const shell = shellHeader.fromJson(pre.json.shell_header);
  const signed = await forgeActivation({ chainId: "NetXdQprcVkpaWU", shellHeader: shell, protocol, parameters: PARAMETERS, secretKey: key });
  const injected = await call(node, "POST", `/injection/block${query}`, { data: toHex(signed.header), operations: [] });
  return { pre, injected };
}

test("an activation preapplied on genesis, signed and injected becomes the level-1 head", async () => {
  const node = await createNode({ activate: false });
  try {
    const heads = await node.fetch(new Request("http://localhost/monitor/heads/main"));
    const reader = heads.body!.getReader();
    await reader.read(); // the current head (genesis)
    const { pre, injected } = await activate(node, GENESIS_PROTOCOL, ACTIVATOR);
    assert.is(pre.json.shell_header.level, 1);
    assert.equal(pre.json.shell_header.fitness, ["00", "0000000000000001"]);
    assert.equal(pre.json.operations, []);
    assert.is(injected!.status, 200, injected!.text);
    const hash = injected!.json;
    assert.match(hash, /^B[1-9A-HJ-NP-Za-km-z]{50}$/);
    assert.is((await call(node, "GET", "/chains/main/blocks/head/hash")).json, hash);
    const header = (await call(node, "GET", "/chains/main/blocks/head/header")).json;
    assert.is(header.protocol, GENESIS_PROTOCOL);
    assert.is(header.level, 1);
    assert.is(header.context, pre.json.shell_header.context);
    assert.equal(header.content, { ...header.content, command: "activate", hash: GENESIS_PROTOCOL, fitness: ["00", "0000000000000001"] });
    assert.match(header.signature, /^sig/);
    const next = JSON.parse(new TextDecoder().decode((await reader.read()).value));
    assert.is(next.hash, hash);
    await reader.cancel();
    // The same block again is accepted and changes nothing.
    assert.equal((await call(node, "GET", "/chains/main/blocks?length=2")).json, [[hash, "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2"]]);
  } finally {
    await node.close();
  }
});

test("an activation signed by another key is refused, and listed as invalid only when forced", async () => {
  const node = await createNode({ activate: false });
  try {
    const { injected } = await activate(node, GENESIS_PROTOCOL, BOOTSTRAP1);
    assert.is(injected!.status, 500);
    assert.is(injected!.json[0].id, "validator.invalid_block");
    assert.equal(injected!.json[0].trace, [{ kind: "permanent", id: "proto.genesis.invalid_signature" }]);
    assert.equal((await call(node, "GET", "/chains/main/invalid_blocks")).json, []);
    const forced = await activate(node, GENESIS_PROTOCOL, BOOTSTRAP1, "?force=true");
    assert.is(forced.injected!.status, 500);
    const invalid = (await call(node, "GET", "/chains/main/invalid_blocks")).json;
    assert.is(invalid.length, 1);
    assert.is(invalid[0].level, 1);
    assert.is(invalid[0].errors[0].id, "validator.invalid_block");
    const one = await call(node, "GET", `/chains/main/invalid_blocks/${invalid[0].block}`);
    assert.equal(one.json, invalid[0]);
    assert.is((await call(node, "DELETE", `/chains/main/invalid_blocks/${invalid[0].block}`)).status, 200);
    assert.equal((await call(node, "GET", "/chains/main/invalid_blocks")).json, []);
    assert.is((await call(node, "GET", "/chains/main/blocks/head/header/shell")).json.level, 0);
  } finally {
    await node.close();
  }
});

test("preapply refuses protocol data for another protocol with a 400, and a missing protocol with its error", async () => {
  const node = await createNode({ activate: false });
  try {
    const bad = await call(node, "POST", "/chains/main/blocks/genesis/helpers/preapply/block", {
      protocol_data: { protocol: HANGZHOU, content: {}, signature: ZERO_SIG },
      operations: [],
    });
    assert.is(bad.status, 400);
    assert.match(bad.text, /^Failed to parse the request body: /);
    const { pre } = await activate(node, "PsBabyM1eUXZseaJdmXFApDSBqj8YBfwELoxZHHW77EMcAbbwAS", ACTIVATOR);
    assert.is(pre.status, 500);
    assert.is(pre.json[0].id, "validator.unavailable_protocol");
  } finally {
    await node.close();
  }
});

test("protocol parameters Hangzhou cannot read are refused at start, naming the field", async () => {
  const { sandboxParameters } = await import("../../lib/protocols/hangzhou/sandbox-parameters.ts");
  const cases: [Record<string, unknown>, string][] = [
    [{ ...sandboxParameters(), preserved_cycles: "two" }, "preserved_cycles"],
    [{ ...sandboxParameters(), time_between_blocks: ["1", "x"] }, "time_between_blocks.1"],
    [(({ blocks_per_cycle: _, ...rest }) => rest)(sandboxParameters()), "blocks_per_cycle"],
  ];
  for (const [parameters, field] of cases) {
    try {
      await createNode({ protocolParameters: parameters, bake: { mode: "manual" } });
      assert.unreachable(`parameters with a bad ${field} should be refused`);
    } catch (e) {
      assert.instance(e, RangeError);
      assert.ok((e as Error).message.startsWith("Invalid protocol parameters: "), (e as Error).message);
      assert.ok((e as Error).message.endsWith(`(at ${field})`), (e as Error).message);
    }
  }
});

test.run();
