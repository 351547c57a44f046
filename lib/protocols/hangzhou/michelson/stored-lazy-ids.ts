/**
 * Big map ids written in a Micheline value of a known type: the `collect_lazy_storage` of a value
 * still in its stored (or transmitted) form, so that a call can know which ids the storage and
 * the parameter hold without parsing them twice. Understands the forms Octez writes and reads:
 * right combs as `Pair a b c` or `{a; b; c}`, `Left`/`Right`, `Some`/`None`, sequences for lists,
 * `{Elt k v; …}` for maps, an integer (or `Pair id {…}` overlay) for a big map.
 * @module
 */
import type { Micheline } from "../../../encoding/micheline.ts";
import type { Ty } from "../../../michelson/ty.ts";
import { hasLazyStorage } from "../../../michelson/data/parse-type.ts";

type Prim = { prim?: string; args?: readonly Micheline[]; int?: string };

/** The big map ids held by `node`, a value of type `t` (unknown shapes are skipped). */
export function storedBigMapIds(t: Ty, node: Micheline): Set<bigint> {
  const ids = new Set<bigint>();
  const walk = (t: Ty, n: Micheline): void => {
    if (!hasLazyStorage(t)) return;
    const p = n as Prim;
    switch (t.prim) {
      case "big_map":
        if (p.int !== undefined) ids.add(BigInt(p.int));
        else if (p.prim === "Pair" && (p.args?.[0] as Prim | undefined)?.int !== undefined) ids.add(BigInt((p.args![0] as Prim).int!));
        return;
      case "pair": {
        let items: readonly Micheline[] | undefined;
        if (Array.isArray(n)) items = n as readonly Micheline[];
        else if (p.prim === "Pair") items = p.args;
        if (items === undefined || items.length < 2) return;
        walk(t.args[0]!, items[0]!);
        walk(t.args[1]!, items.length === 2 ? items[1]! : Array.isArray(n) ? items.slice(1) : { prim: "Pair", args: items.slice(1) });
        return;
      }
      case "or":
        if (p.prim === "Left" && p.args?.length === 1) walk(t.args[0]!, p.args[0]!);
        else if (p.prim === "Right" && p.args?.length === 1) walk(t.args[1]!, p.args[0]!);
        return;
      case "option":
        if (p.prim === "Some" && p.args?.length === 1) walk(t.args[0]!, p.args[0]!);
        return;
      case "list":
        if (Array.isArray(n)) for (const x of n as readonly Micheline[]) walk(t.args[0]!, x);
        return;
      case "map":
        if (Array.isArray(n)) {
          for (const e of n as readonly Micheline[]) {
            const ep = e as Prim;
            if (ep.prim === "Elt" && ep.args?.length === 2) walk(t.args[1]!, ep.args[1]!);
          }
        }
        return;
    }
  };
  walk(t, node);
  return ids;
}
