/** The genesis shell header captured from an Octez v12 sandbox (JSON and binary of `header/shell`). */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary, encodeBinary, fromHex, shellHeader, toHex, toRfc3339, type Json } from "../../lib/encoding/mod.ts";

const file = new URL("../vectors/octez/examples/shell-header-genesis-json-and-binary.json", import.meta.url);
const capture = JSON.parse(readFileSync(file, "utf8")) as { exchanges: { response?: { [k: string]: Json }; output_text?: string }[] };
const json = capture.exchanges[0]!.response!;
const hex = capture.exchanges[1]!.output_text!;

test("the genesis shell header decodes to the captured JSON (timestamp scrubbed by tezt)", () => {
  const header = decodeBinary(shellHeader, fromHex(hex));
  const out = shellHeader.toJson(header) as { [k: string]: Json };
  assert.is(out["timestamp"], "2018-06-30T16:07:32Z");
  assert.equal({ ...out, timestamp: "[TIMESTAMP]" }, json);
});

test("the genesis shell header encodes from its JSON to the captured bytes", () => {
  const value = shellHeader.fromJson({ ...json, timestamp: "2018-06-30T16:07:32Z" });
  assert.is(toHex(encodeBinary(shellHeader, value)), hex);
});

test("timestamps accept decimal seconds and RFC 3339 offsets on input", () => {
  const base = { ...json } as { [k: string]: Json };
  const a = shellHeader.fromJson({ ...base, timestamp: "1530374852" });
  const b = shellHeader.fromJson({ ...base, timestamp: "2018-06-30T18:07:32+02:00" });
  assert.is(a.timestamp, 1530374852);
  assert.is(b.timestamp, 1530374852);
  assert.is(toRfc3339(1587399600), "2020-04-20T16:20:00Z");
});

test.run();
