/**
 * Output helpers for commands: `--json` prints exactly one JSON document on stdout,
 * human output goes to stdout, problems one line each to stderr.
 */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** Prints one JSON document (plain JSON.stringify: command output, not a hashed form). */
  json(doc: unknown): void;
  /** Reads all of stdin (for `-` arguments). */
  readStdin(): Buffer;
  /** Whether stdout is an interactive terminal. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

import { readFileSync } from 'node:fs';

export function processIO(): CommandIO {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    json: (doc) => process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`),
    readStdin: () => readFileSync(0),
    isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}
