/** Smart contracts: origination, calls by entrypoint, FAILWITH, internal transactions, originations in batches. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as michelCodec from "@taquito/michel-codec";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/contracts.mjs";

scenario({ suite, assert, sandbox, taquito, michelCodec, version: "12" });
