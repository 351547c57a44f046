/**
 * The protocol record (Octez `lib_base/protocol.ml`): the environment version a protocol expects
 * and its components, one per OCaml module, with the module's interface and implementation
 * source text. `POST /injection/protocol` takes it, `GET /protocols/<hash>` answers it, and the
 * protocol's hash is the BLAKE2b-256 digest of its binary form.
 *
 * Binary: `expected_env_version` (uint16) ‖ components (4-byte byte length, then for each:
 * name (4-byte length ‖ UTF-8), interface (presence byte 0x00/0xff, then 4-byte length ‖ UTF-8),
 * implementation (4-byte length ‖ UTF-8)).
 *
 * @example
 * ```ts
 * const record = protocolRecord.fromJson({ expected_env_version: 3,
 *   components: [{ name: "Main", implementation: "let x = 1" }] });
 * encodeBinary(protocolRecord, record); // 0003 00000016 00000004 4d61696e 00 00000009 6c6574…
 * ```
 * @module
 */
import { string } from "./bytes.ts";
import { conv, def } from "./conv.ts";
import type { Codec } from "./core.ts";
import { uint16 } from "./integers.ts";
import { list } from "./list.ts";
import { obj, opt, req } from "./object.ts";

/** The environment versions Octez v12 knows (`Protocol.env_version`: V0 … V4). */
export const ENV_VERSIONS: readonly number[] = Object.freeze([0, 1, 2, 3, 4]);

/** Octez's `protocol.environment_version`: a uint16 limited to the known versions (0 to 4). */
export const envVersion: Codec<number> = def(
  "protocol.environment_version",
  conv<number, number>(
    (v) => {
      if (!ENV_VERSIONS.includes(v)) throw new RangeError(`unexpected environment version ${String(v)}`);
      return v;
    },
    (v) => {
      if (!ENV_VERSIONS.includes(v)) throw new RangeError(`unexpected environment version ${v}`);
      return v;
    },
    uint16,
  ),
);

/** One module of a protocol: its name, optional interface (`.mli`) and implementation (`.ml`). */
export interface ProtocolComponent {
  name: string;
  interface?: string;
  implementation: string;
}

/** A protocol's sources, as the shell stores and exchanges them. */
export interface ProtocolRecord {
  expected_env_version: number;
  components: ProtocolComponent[];
}

/** Codec of one component (`{name, interface?, implementation}`). */
export const protocolComponent: Codec<ProtocolComponent> = obj(
  req("name", string),
  opt("interface", string),
  req("implementation", string),
) as Codec<ProtocolComponent>;

/** Codec of the protocol record (Octez's `protocol` encoding). */
export const protocolRecord: Codec<ProtocolRecord> = def(
  "protocol",
  obj(req("expected_env_version", envVersion), req("components", list(protocolComponent))) as Codec<ProtocolRecord>,
  { description: "The environment a protocol relies on and the components a protocol is made of." },
);
