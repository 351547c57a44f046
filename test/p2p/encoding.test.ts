/**
 * The handshake's wire formats, against bytes built by hand from Octez's encodings
 * (`src/lib_p2p/p2p_socket.ml`, `src/lib_base/network_version.ml`, `p2p_rejection.ml`,
 * `p2p_point.ml`, `src/lib_p2p_services/connection_metadata.ml`), field by field.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DecodeError, decodeBinary, encodeBinary } from "../../lib/encoding/codec.ts";
import { fromHex, toHex } from "../../lib/encoding/hex.ts";
import { ack, describeMotive, RejectionMotive } from "../../lib/p2p/encoding/ack.ts";
import {
  chainNameBytes,
  connectionMessage,
  connectionMetadata,
  decodeConnectionMessage,
  encodeConnectionMessage,
  networkVersion,
} from "../../lib/p2p/encoding/connection.ts";
import { canonicalHost, formatIpAddress, formatPoint, parseIpAddress, parsePoint, point } from "../../lib/p2p/encoding/point.ts";

const ascii = (s: string) => toHex(new TextEncoder().encode(s));
const PK = "a072c7b3e477142689cadee638078b377df5e5793e3cea529d0b718cde59f212";
const STAMP = "0cfe810d9b4591f0f50721b6811f2981a4274e9d0593bbd0";
const NONCE = "000102030405060708090a0b0c0d0e0f1011121314151617";

const CONNECTION_MESSAGE = [
  "0069", // 2-byte length of what follows: 105 bytes
  "2604", // port: uint16 9732
  PK, // public key: 32 bytes
  STAMP, // proof-of-work stamp: 24 bytes
  NONCE, // message nonce: 24 bytes
  "0000000f", // chain name: 4-byte length (15)…
  ascii("SANDBOXED_TEZOS"), // …and its bytes
  "0002", // distributed_db_version: uint16 2
  "0001", // p2p_version: uint16 1
].join("");

const message = {
  port: 9732,
  public_key: fromHex(PK),
  proof_of_work_stamp: fromHex(STAMP),
  message_nonce: fromHex(NONCE),
  version: { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 },
};

test("connection message: length prefix, port, key, stamp, nonce, chain name, versions", () => {
  assert.is(toHex(encodeConnectionMessage(message)), CONNECTION_MESSAGE);
  assert.equal(decodeConnectionMessage(fromHex(CONNECTION_MESSAGE).subarray(2)), message);
  assert.is(toHex(chainNameBytes(fromHex(CONNECTION_MESSAGE).subarray(2))!), ascii("SANDBOXED_TEZOS"));
});

test("connection message: port 0 means none announced", () => {
  const { port: _, ...noPort } = message;
  const bytes = encodeConnectionMessage(noPort);
  assert.is(toHex(bytes.subarray(2, 4)), "0000");
  assert.equal(decodeConnectionMessage(bytes.subarray(2)), noPort);
});

test("connection message JSON is Octez's (pubkey, hex bytes)", () => {
  assert.equal(connectionMessage.toJson(message), {
    port: 9732,
    pubkey: PK,
    proof_of_work_stamp: STAMP,
    message_nonce: NONCE,
    version: { chain_name: "SANDBOXED_TEZOS", distributed_db_version: 2, p2p_version: 1 },
  });
});

test("connection message: truncated, trailing bytes, bad length prefix are decoding errors", () => {
  const body = fromHex(CONNECTION_MESSAGE).subarray(2);
  assert.throws(() => decodeConnectionMessage(body.subarray(0, body.length - 1)), (e: unknown) => e instanceof DecodeError);
  assert.throws(() => decodeConnectionMessage(Uint8Array.from([...body, 0])), (e: unknown) => e instanceof DecodeError);
  const badName = body.slice();
  badName[82 + 3] = 0xff; // chain name length 255, more than is left
  assert.throws(() => decodeConnectionMessage(badName), (e: unknown) => e instanceof DecodeError);
  assert.is(chainNameBytes(badName), undefined);
});

test("a chain name that is not UTF-8 still decodes (OCaml strings are bytes)", () => {
  const v = decodeBinary(networkVersion, fromHex("00000002ff41" + "0000" + "0000"));
  assert.is(v.chain_name, "\ufffdA");
});

test("metadata: disable_mempool then private_node, one byte each (0x00 / 0xff)", () => {
  assert.is(toHex(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: false })), "0000");
  assert.is(toHex(encodeBinary(connectionMetadata, { disable_mempool: true, private_node: false })), "ff00");
  assert.is(toHex(encodeBinary(connectionMetadata, { disable_mempool: false, private_node: true })), "00ff");
  assert.equal(decodeBinary(connectionMetadata, fromHex("00ff")), { disable_mempool: false, private_node: true });
  // data-encoding reads any non-zero byte as true
  assert.equal(decodeBinary(connectionMetadata, fromHex("0102")), { disable_mempool: true, private_node: true });
  assert.throws(() => decodeBinary(connectionMetadata, fromHex("00")), (e: unknown) => e instanceof DecodeError);
  assert.throws(() => decodeBinary(connectionMetadata, fromHex("000000")), (e: unknown) => e instanceof DecodeError);
});

test("Ack is tag 0, Nack_v_0 tag 255, each alone", () => {
  assert.is(toHex(encodeBinary(ack, { kind: "Ack" })), "00");
  assert.is(toHex(encodeBinary(ack, { kind: "Nack_v_0" })), "ff");
  assert.equal(decodeBinary(ack, fromHex("00")), { kind: "Ack" });
  assert.equal(decodeBinary(ack, fromHex("ff")), { kind: "Nack_v_0" });
  assert.equal(ack.toJson({ kind: "Ack" }), { ack: {} });
});

const NACK = [
  "01", // tag 1: Nack
  "0002", // motive: int16 2 (Unknown_chain_name)
  "00000027", // point list: 4-byte length (39 bytes)
  "0000000d", ascii("10.0.0.1:9732"), // a point: its text as a string (13 bytes)…
  "00000012", ascii("[2001:db8::1]:9733"), // …another (18 bytes)
].join("");

test("Nack: tag 1, int16 motive, length-prefixed list of points", () => {
  const value = { kind: "Nack" as const, motive: RejectionMotive.UnknownChainName, points: [{ host: "10.0.0.1", port: 9732 }, { host: "2001:db8::1", port: 9733 }] };
  assert.is(toHex(encodeBinary(ack, value)), NACK);
  assert.equal(decodeBinary(ack, fromHex(NACK)), value);
  assert.equal(ack.toJson(value), { nack_motive: 2, nack_list: ["10.0.0.1:9732", "[2001:db8::1]:9733"] });
});

test("Nack motives: Octez's numbers, unknown codes kept, int16", () => {
  assert.equal(RejectionMotive, {
    NoMotive: 0,
    TooManyConnections: 1,
    UnknownChainName: 2,
    DeprecatedP2pVersion: 3,
    DeprecatedDistributedDbVersion: 4,
    AlreadyConnected: 5,
  });
  assert.equal(decodeBinary(ack, fromHex("01ffff00000000")), { kind: "Nack", motive: -1, points: [] });
  assert.is(describeMotive(1), "Too many connections");
  assert.is(describeMotive(42), "Rejected for unknown reason, code (42)");
});

test("Nack: at most 100 points", () => {
  const points = Array.from({ length: 101 }, (_, i) => ({ host: "10.0.0.1", port: i }));
  assert.throws(() => encodeBinary(ack, { kind: "Nack", motive: 0, points }));
  const ok = encodeBinary(ack, { kind: "Nack", motive: 0, points: points.slice(0, 100) });
  const one = encodeBinary(point, points[100]!);
  const tooMany = new Uint8Array(ok.length + one.length);
  tooMany.set(ok);
  tooMany.set(one, ok.length);
  new DataView(tooMany.buffer).setUint32(3, ok.length - 7 + one.length);
  assert.throws(() => decodeBinary(ack, tooMany), (e: unknown) => e instanceof DecodeError);
});

test("unknown Ack tags are decoding errors", () => {
  assert.throws(() => decodeBinary(ack, fromHex("02")), (e: unknown) => e instanceof DecodeError);
});

test("points: Octez's text, IPv4 for IPv4-mapped addresses, brackets for IPv6", () => {
  assert.is(toHex(encodeBinary(point, { host: "127.0.0.1", port: 9732 })), "0000000e" + ascii("127.0.0.1:9732"));
  assert.is(formatPoint({ host: "::ffff:127.0.0.1", port: 1 }), "127.0.0.1:1");
  assert.is(formatPoint({ host: "2001:DB8:0:0:0:0:0:1", port: 80 }), "[2001:db8::1]:80");
  assert.equal(decodeBinary(point, fromHex("0000000a" + ascii("[::1]:9732"))), { host: "::1", port: 9732 });
  assert.throws(() => encodeBinary(point, { host: "localhost", port: 1 }), (e: unknown) => e instanceof TypeError);
  assert.throws(() => encodeBinary(point, { host: "127.0.0.1", port: 65536 }), (e: unknown) => e instanceof RangeError);
});

test("points: what Octez's parser accepts and refuses", () => {
  assert.equal(parsePoint("192.168.0.1:9732"), { host: "192.168.0.1", port: 9732 });
  assert.equal(parsePoint("[::ffff:1.2.3.4]:1"), { host: "1.2.3.4", port: 1 });
  assert.equal(parsePoint("[fe80::1]:0"), { host: "fe80::1", port: 0 });
  assert.equal(parsePoint("1.2.3.4:5#idtqxHUjbjbCfaDn4jczoPGsnhacKX"), { host: "1.2.3.4", port: 5 });
  for (const bad of ["1.2.3.4", "1.2.3.4:", "1.2.3.4:65536", "256.1.1.1:1", "::1:80", "[::1]", "[::1]80", "example.com:80", ":80", "1.2.3.4:5#nope", "[1::2::3]:1"]) {
    assert.is(parsePoint(bad), undefined, bad);
  }
  assert.throws(() => decodeBinary(point, fromHex("00000004" + ascii("nope"))), (e: unknown) => e instanceof DecodeError);
  // at most 51 bytes in all (4 + 47 characters)
  assert.throws(() => decodeBinary(point, fromHex("00000030" + ascii("[0000:0000:0000:0000:0000:0000:0000:0001]:00001"))), (e: unknown) => e instanceof DecodeError);
});

test("IPv6 text as ipaddr prints it (RFC 5952)", () => {
  const cases: [string, string][] = [
    ["0:0:0:0:0:0:0:0", "::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8:1:1:1:1:0:1", "2001:db8:1:1:1:1:0:1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["::1.2.3.4", "::102:304"],
  ];
  for (const [text, canonical] of cases) assert.is(canonicalHost(text), canonical, text);
  assert.is(formatIpAddress(parseIpAddress("10.1.2.3")!), "10.1.2.3");
  assert.is(toHex(parseIpAddress("10.1.2.3")!), "00000000000000000000ffff0a010203");
});

test.run();
