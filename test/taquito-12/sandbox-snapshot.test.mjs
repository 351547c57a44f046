/** Snapshot and revert: Taquito transfers after a snapshot are forgotten by the revert. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/sandbox-snapshot.mjs";

scenario({ suite, assert, sandbox, version: "12" });
