/** A contract with big maps: origination, reads of present and absent keys, updates and their diffs. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as michelCodec from "@taquito/michel-codec";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/contracts-big-map.mjs";

scenario({ suite, assert, sandbox, taquito, michelCodec, version: "25" });
