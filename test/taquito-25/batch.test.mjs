/** Batches of transfers: one operation, several contents, with the contract and wallet APIs. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/batch.mjs";

scenario({ suite, assert, sandbox, taquito, version: "25" });
