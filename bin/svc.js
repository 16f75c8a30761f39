#!/usr/bin/env node
// Entry of the `svc` command: the compiled CLI lives in dist/ (built by `npm ci` through `prepare`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
