import { test } from "uvu";
import * as assert from "uvu/assert";
import { throwsA } from "../genesis/throws.ts";
import { checkBakerMode, formatBakerMode, parseBakerMode } from "../../lib/baker/mode.ts";

test("parseBakerMode() reads auto, manual and interval:<seconds>", () => {
  assert.equal(parseBakerMode("auto"), { mode: "auto" });
  assert.equal(parseBakerMode("manual"), { mode: "manual" });
  assert.equal(parseBakerMode("interval:5"), { mode: "interval", seconds: 5 });
  assert.equal(parseBakerMode("interval:0.25"), { mode: "interval", seconds: 0.25 });
});

test("parseBakerMode() refuses unknown modes and bad intervals with RangeError, non-strings with TypeError", () => {
  for (const bad of ["", "Auto", "interval", "interval:", "interval:0", "interval:-1", "interval:1e3", "interval:86401", "every:5"]) {
    throwsA(() => parseBakerMode(bad), RangeError);
  }
  throwsA(() => parseBakerMode(5 as unknown as string), TypeError);
});

test("checkBakerMode() accepts the mode objects of createNode's bake option and checks the interval", () => {
  assert.equal(checkBakerMode({ mode: "interval", seconds: 2 }), { mode: "interval", seconds: 2 });
  assert.equal(checkBakerMode("manual"), { mode: "manual" });
  throwsA(() => checkBakerMode({ mode: "interval", seconds: 0 }), RangeError);
  throwsA(() => checkBakerMode({ mode: "interval", seconds: "2" as unknown as number }), TypeError);
  throwsA(() => checkBakerMode({ mode: "often" } as unknown as { mode: "auto" }), RangeError);
  throwsA(() => checkBakerMode(null as unknown as { mode: "auto" }), TypeError);
});

test("formatBakerMode() is the inverse of parseBakerMode()", () => {
  for (const text of ["auto", "manual", "interval:3", "interval:0.5"]) assert.is(formatBakerMode(parseBakerMode(text)), text);
});

test.run();
