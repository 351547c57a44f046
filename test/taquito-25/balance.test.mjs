/** `tz.getBalance` and the plain reads Taquito 25 makes before any operation. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/balance.mjs";

scenario({ suite, assert, sandbox, taquito, version: "25" });
