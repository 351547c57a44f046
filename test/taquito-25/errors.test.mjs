/** Hangzhou's errors reach Taquito 25 with their ids. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/errors.mjs";

scenario({ suite, assert, sandbox, taquito, version: "25" });
