#!/usr/bin/env node
import { runCli } from './main';

// The single-file bundle's entry (dist/cli.js).
void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
