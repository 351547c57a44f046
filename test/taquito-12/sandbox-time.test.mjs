/** The sandbox clock: a call checking NOW is refused, then applied after `POST /sandbox/time/increase`. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/sandbox-time.mjs";

scenario({ suite, assert, sandbox, version: "12" });
