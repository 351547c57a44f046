/**
 * The Octez sandbox's bootstrap accounts, bootstrap1 … bootstrap5 (tezt `constant.ml`): name,
 * address, public key and unencrypted secret key, as text. Plain data with no cryptography, so
 * that the command line checks `--baker-keys` and the node prints the accounts at start without
 * loading the curves; `test/baker/keys.test.ts` derives each address and key from its secret key.
 *
 * @example
 * ```ts
 * findBootstrapAccount("bootstrap3")?.address;                   // "tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU"
 * findBootstrapAccount("tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx")?.name; // "bootstrap1"
 * ```
 * @module
 */

/** A sandbox bootstrap account. */
export interface BootstrapAccount {
  /** `bootstrap1` … `bootstrap5`. */
  readonly name: string;
  /** Its `tz1…` address. */
  readonly address: string;
  /** Its `edpk…` public key. */
  readonly publicKey: string;
  /** Its unencrypted `edsk…` secret key. */
  readonly secretKey: string;
}

/** bootstrap1 … bootstrap5, in order. */
export const BOOTSTRAP_ACCOUNTS: readonly BootstrapAccount[] = Object.freeze(
  [
    ["tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx", "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "edsk3gUfUPyBSfrS9CCgmCiQsTCHGkviBDusMxDJstFtojtc1zcpsh"],
    ["tz1gjaF81ZRRvdzjobyfVNsAeSC6PScjfQwN", "edpktzNbDAUjUk697W7gYg2CRuBQjyPxbEg8dLccYYwKSKvkPvjtV9", "edsk39qAm1fiMjgmPkw1EgQYkMzkJezLNewd7PLNHTkr6w9XA2zdfo"],
    ["tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU", "edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", "edsk4ArLQgBTLWG5FJmnGnT689VKoqhXwmDPBuGx3z4cvwU9MmrPZZ"],
    ["tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv", "edpkuFrRoDSEbJYgxRtLx2ps82UdaYc1WwfS9sE11yhauZt5DgCHbU", "edsk2uqQB9AY4FvioK2YMdfmyMrer5R8mGFyuaLLFfSRo8EoyNdht3"],
    ["tz1ddb9NMYHZi5UzPdzTZMYQQZoMub195zgv", "edpkv8EUUH68jmo3f7Um5PezmfGrRF24gnfLpH3sVNwJnV5bVCxL2n", "edsk4QLrcijEffxV31gGdN2HU7UpyJjA8drFoNcmnB28n89YjPNRFm"],
  ].map(([address, publicKey, secretKey], i) => Object.freeze({ name: `bootstrap${i + 1}`, address: address!, publicKey: publicKey!, secretKey: secretKey! })),
);

/** The account named `bootstrapN` or whose address is `tz1…`; undefined for any other text. */
export function findBootstrapAccount(nameOrAddress: string): BootstrapAccount | undefined {
  return BOOTSTRAP_ACCOUNTS.find((a) => a.name === nameOrAddress || a.address === nameOrAddress);
}

/** Why a baker key is refused: the error message `selectBootstrapKeys` and `--baker-keys` give. */
export function unknownBakerKeyMessage(name: unknown): string {
  const shown = typeof name === "string" ? JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name) : String(name);
  return `Unknown baker key ${shown}: expected ${BOOTSTRAP_ACCOUNTS.map((a) => a.name).join(", ")} or one of their tz1 addresses`;
}
