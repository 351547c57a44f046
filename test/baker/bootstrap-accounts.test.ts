/**
 * The bootstrap accounts as text (lib/baker/bootstrap-accounts.ts) against what their secret keys
 * give (the address and public key derived here) and the public keys of the sandbox parameters.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BOOTSTRAP_ACCOUNTS, findBootstrapAccount } from "../../lib/baker/bootstrap-accounts.ts";
import { formatPublicKey, formatPublicKeyHash, parseSecretKey, publicKeyHash, publicKeyOf } from "../../lib/crypto/keys.ts";
import { SANDBOX_BOOTSTRAP_ACCOUNTS } from "../../lib/protocols/hangzhou/sandbox-parameters.ts";

test("each account's address and public key are those of its secret key, and the sandbox parameters' keys in order", () => {
  assert.is(BOOTSTRAP_ACCOUNTS.length, 5);
  BOOTSTRAP_ACCOUNTS.forEach((account, i) => {
    const pk = publicKeyOf(parseSecretKey(account.secretKey));
    assert.is(account.name, `bootstrap${i + 1}`);
    assert.is(account.address, formatPublicKeyHash(publicKeyHash(pk)), account.name);
    assert.is(account.publicKey, formatPublicKey(pk), account.name);
    assert.is(account.publicKey, SANDBOX_BOOTSTRAP_ACCOUNTS[i]![0], account.name);
  });
  // tezt's constant.ml: bootstrap1's address
  assert.is(BOOTSTRAP_ACCOUNTS[0]!.address, "tz1KqTpEZ7Yob7QbPE4Hy4Wo8fHG8LhKxZSx");
});

test("findBootstrapAccount() by name or address; nothing else", () => {
  assert.is(findBootstrapAccount("bootstrap4")?.address, "tz1b7tUupMgCNw2cCLpKTkSD1NZzB5TkP2sv");
  assert.is(findBootstrapAccount("tz1faswCTDciRzE4oJ9jn2Vm2dvjeyA9fUzU")?.name, "bootstrap3");
  for (const text of ["bootstrap6", "Bootstrap1", "", "edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav"]) {
    assert.is(findBootstrapAccount(text), undefined, text);
  }
});

test.run();
