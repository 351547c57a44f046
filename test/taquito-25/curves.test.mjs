/** tz2 (secp256k1) and tz3 (P-256) accounts sign, reveal and transfer with Taquito 25. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as taquito from "@taquito/taquito";
import * as sandbox from "./support/sandbox.mjs";
import scenario from "../taquito-common/curves.mjs";

scenario({ suite, assert, sandbox, taquito, version: "25" });
