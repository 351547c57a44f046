#!/usr/bin/env node
/**
 * The package's command, `tezos-node-ts [OPTIONS]` (`npx tezos-node-ts`, the `bin` of
 * `package.json`): the node under Node, compiled to `dist/platform/node/bin.js`. It is
 * `main.ts` with the `#!` line a command needs.
 * @module
 */
import "./main.ts";
