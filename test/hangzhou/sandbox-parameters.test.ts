import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { sandboxParameters } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";
import { parseProtocolParameters } from "../../lib/protocols/hangzhou/constants.ts";

const reference = JSON.parse(
  readFileSync(new URL("../vectors/octez/examples/011-hangzhou-protocol-parameters.json", import.meta.url), "utf8"),
);

test("the sandbox parameters are Octez's Hangzhou sandbox parameters file, key order included", () => {
  assert.is(JSON.stringify(sandboxParameters()), JSON.stringify(reference));
});

test("the sandbox parameters parse as Hangzhou protocol parameters", () => {
  const p = parseProtocolParameters(sandboxParameters());
  assert.is(p.bootstrap_accounts.length, 5);
  assert.is(p.commitments.length, 10);
  assert.is(p.constants.blocks_per_cycle, 8);
});

test.run();
