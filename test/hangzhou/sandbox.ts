/**
 * The Octez sandbox right after activation, as the reference files describe it: the capture of
 * `tezt/_regressions/rpc/hangzhou.client.others.out`, the bootstrap keys of OCTEZ-FACTS §E, and
 * the roll layout of HANGZHOU-FACTS §1.3 (bootstrap k owns rolls 500k … 500k+499, bound 2500).
 */
import { readFileSync } from "node:fs";
import { parsePublicKey, type PublicKey } from "../../lib/crypto/keys.ts";
import type { Json } from "../../lib/encoding/codec.ts";
import type { RightsSource, RollSnapshot } from "../../lib/protocols/hangzhou/rights.ts";
import { initialSeeds } from "../../lib/protocols/hangzhou/seed.ts";

const examples = new URL("../vectors/octez/examples/", import.meta.url);

/** A JSON reference file of `test/vectors/octez/examples/`. */
export function example(name: string): Json {
  return JSON.parse(readFileSync(new URL(name, examples), "utf8")) as Json;
}

type Exchange = { method: string; path: string; response: Json };

const capture = example("hangzhou-sandbox-constants-rights-levels.json") as { exchanges: Exchange[] };

/** The captured response of `GET <path>`. */
export function captured(path: string): Json {
  const e = capture.exchanges.find((x) => x.method === "GET" && x.path === path);
  if (e === undefined) throw new Error(`no captured exchange for ${path}`);
  return e.response;
}

/** bootstrap1..5 (tezt `constant.ml`): public key and key hash, in order. */
export const BOOTSTRAP: readonly { pk: string; pkh: string }[] = [
  { pk: "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", pkh: "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx" },
  { pk: "edpktzNbDAUjUk697W7gYg2CRuBQjyPxbEg8dLccYYwKSKvkPvjtV9", pkh: "tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN" },
  { pk: "edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", pkh: "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU" },
  { pk: "edpkuFrRoDSEbJYgxRtLx2ps82UdaYc1WwfS9sE11yhauZt5DgCHbU", pkh: "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv" },
  { pk: "edpkv8EUUH68jmo3f7Um5PezmfGrRF24gnfLpH3sVNwJnV5bVCxL2n", pkh: "tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv" },
];

/** The bootstrap public keys, parsed. */
export const BOOTSTRAP_KEYS: readonly PublicKey[] = BOOTSTRAP.map((b) => parsePublicKey(b.pk));

/** The snapshot of every cycle 0..p+1 at activation. */
export const SANDBOX_SNAPSHOT: RollSnapshot = {
  bound: 2500,
  owner: (roll) => (roll >= 0 && roll < 2500 ? BOOTSTRAP_KEYS[Math.floor(roll / 500)] : undefined),
};

const seeds = initialSeeds(4);

/** Seeds and snapshots of the sandbox's cycles 0..3. */
export const SANDBOX_SOURCE: RightsSource = {
  seed(cycle) {
    const s = seeds[cycle];
    if (s === undefined) throw new Error(`no seed for cycle ${cycle}`);
    return s;
  },
  snapshot: () => SANDBOX_SNAPSHOT,
};
