/** Taquito 25 pointed at a follower node: a transfer baked by its peer and confirmed there (issue 13). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/network.mjs";

scenario({ suite, assert, sandbox, taquito, version: "25" });
