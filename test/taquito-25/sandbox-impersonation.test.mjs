/** Impersonation: a toolkit signing garbage for bootstrap1 transfers after `POST /sandbox/impersonate`, not before nor after the stop. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { b58Encode, PrefixV2 } from "@taquito/utils";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/sandbox-impersonation.mjs";

scenario({ suite, assert, sandbox, version: "25", formatSignature: (bytes) => b58Encode(bytes, PrefixV2.Ed25519Signature) });
