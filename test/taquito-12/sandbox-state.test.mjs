/** The sandbox's state changes: `POST /sandbox/set_balance` on a fresh account, then a Taquito transfer from it. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/sandbox-state.mjs";

scenario({ suite, assert, sandbox, version: "12" });
