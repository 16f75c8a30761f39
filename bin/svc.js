#!/usr/bin/env node
// Entry of the `svc` command: the compiled CLI lives in dist/ (built by `npm ci` through `prepare`).
import '../dist/cli/main.js';
