import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { blockErrorCodec, invalidBlock, unavailableProtocol } from "../../lib/shell/errors.ts";

const B = "BLockGenesisGenesisGenesisGenesisGenesisf79b5d1CoW2";

test("validator.invalid_block prints Octez's fields: the block, then the block error's", () => {
  assert.equal(invalidBlock.error({ invalid_block: B, error: "invalid_level", expected: 2, found: 5 }).toJson(), [
    { kind: "permanent", id: "validator.invalid_block", invalid_block: B, error: "invalid_level", expected: 2, found: 5 },
  ]);
  assert.equal(invalidBlock.error({ invalid_block: B, error: "non_increasing_timestamp" }).toJson(), [
    { kind: "permanent", id: "validator.invalid_block", invalid_block: B, error: "non_increasing_timestamp" },
  ]);
});

test("block errors are tagged in binary as Octez numbers them", () => {
  const bytes = encodeBinary(blockErrorCodec, { error: "invalid_proto_level", expected: 1, found: 3 });
  assert.equal([...bytes], [5, 1, 3]);
  assert.equal(decodeBinary(blockErrorCodec, bytes), { error: "invalid_proto_level", expected: 1, found: 3 });
  assert.equal([...encodeBinary(blockErrorCodec, { error: "unexpected_number_of_passes", found: 2 })], [9, 2]);
});

test("validator.unavailable_protocol names the block and the missing protocol", () => {
  const P = "PtHangz2aRngywmSRGGvrcTyMbbdpWdpFKuS4uMWxg2RaH9i1qx";
  assert.equal(unavailableProtocol.error({ block: B, missing_protocol: P }).toJson(), [
    { kind: "temporary", id: "validator.unavailable_protocol", block: B, missing_protocol: P },
  ]);
});

test.run();
