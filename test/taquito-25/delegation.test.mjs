/** `setDelegate` and `registerDelegate` with Taquito 25. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/delegation.mjs";

scenario({ suite, assert, sandbox, taquito, version: "25" });
