/**
 * Size wrappers: `dynamicSize` (length prefix, data-encoding `dynamic_size`) and `checkSize`
 * (upper bound on the binary length, data-encoding `check_size`).
 * @module
 */
import { DecodeError } from "./codec.ts";
import { makeCodec, type Codec } from "./core.ts";

/** Options of {@link dynamicSize}. */
export interface DynamicSizeOptions {
  /** Length prefix: 4 bytes (`Uint30`, default) or 1 byte (`Uint8`). */
  readonly lengthSize?: "Uint30" | "Uint8";
}

const MAX_UINT30 = 0x3fffffff;

/**
 * Prefixes the binary form of `codec` with its length, so that a variable-size value can sit
 * anywhere in an object (data-encoding `dynamic_size`). JSON is unchanged.
 * @example dynamicSize(variableBytes) // = bytes
 */
export function dynamicSize<T>(codec: Codec<T>, options: DynamicSizeOptions = {}): Codec<T> {
  const lengthSize = options.lengthSize ?? "Uint30";
  const prefix = lengthSize === "Uint8" ? 1 : 4;
  const max = lengthSize === "Uint8" ? 0xff : MAX_UINT30;
  return makeCodec<T>({
    title: codec.title,
    size: { kind: "dynamic" },
    desc: { t: "dyn", codec, lengthSize },
    toJson: (v) => codec.toJson(v),
    fromJson: (j) => codec.fromJson(j),
    write(out, v) {
      const at = out.reserve(prefix);
      const start = out.length;
      codec.write(out, v);
      const len = out.length - start;
      if (len > max) throw new RangeError(`Value of ${len} bytes does not fit a ${lengthSize} length prefix`);
      if (prefix === 1) out.patchU8(at, len);
      else out.patchU32(at, len);
    },
    read(r) {
      let len: number;
      if (prefix === 1) len = r.u8();
      else {
        len = r.u32();
        if (len > MAX_UINT30) throw new DecodeError(`Length prefix ${len} exceeds 2^30 - 1`);
      }
      if (r.pos + len > r.end) throw new DecodeError(`Not enough data: length prefix says ${len} bytes, ${r.remaining} left`);
      const saved = r.end;
      r.end = r.pos + len;
      try {
        const v = codec.read(r);
        if (r.pos !== r.end) throw new DecodeError(`${r.end - r.pos} unexpected trailing bytes in a length-prefixed value`);
        return v;
      } finally {
        r.end = saved;
      }
    },
    schema: (ctx) => codec.schema(ctx),
  });
}

/** Rejects binary forms longer than `limit` bytes (data-encoding `check_size`). */
export function checkSize<T>(limit: number, codec: Codec<T>): Codec<T> {
  return makeCodec<T>({
    title: codec.title,
    size: codec.size,
    desc: { t: "wrap", codec: () => codec },
    toJson: (v) => codec.toJson(v),
    fromJson: (j) => codec.fromJson(j),
    write(out, v) {
      const start = out.length;
      codec.write(out, v);
      if (out.length - start > limit) throw new RangeError(`Binary form longer than ${limit} bytes`);
    },
    read(r) {
      const start = r.pos;
      const saved = r.end;
      if (r.end - start > limit) r.end = start + limit;
      try {
        return codec.read(r);
      } catch (e) {
        if (e instanceof DecodeError && r.end !== saved && /^Not enough data/.test(e.message)) {
          throw new DecodeError(`Binary form longer than ${limit} bytes`, e.path);
        }
        throw e;
      } finally {
        r.end = saved;
      }
    },
    schema: (ctx) => codec.schema(ctx),
  });
}
