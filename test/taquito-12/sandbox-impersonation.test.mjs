/** Impersonation: a signer that claims bootstrap1 and signs with random bytes transfers after `POST /sandbox/impersonate`. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { b58cencode, prefix, Prefix } from "@taquito/utils";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/sandbox-impersonation.mjs";

scenario({ suite, assert, sandbox, version: "12", formatSignature: (bytes) => b58cencode(bytes, prefix[Prefix.EDSIG]) });
