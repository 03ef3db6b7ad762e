import { readFileSync } from 'node:fs';
import { encode, type JsonValue } from '../canonical';

/**
 * Where a command reads and writes: `--json` prints exactly one JSON document on
 * stdout, human output goes to stdout, problems one line each to stderr.
 */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** Prints one JSON document (see `jsonDocument`). */
  json(doc: unknown): void;
  /** Reads all of stdin (for `-` arguments). */
  readStdin(): Buffer;
  /** Whether stdin and stdout are an interactive terminal. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * One JSON document for `--json`: keys in the order the command built them, with
 * exact integers (bigint) and float-ness kept, so rows print exactly as stored.
 */
export function jsonDocument(doc: unknown): string {
  return encode(doc as JsonValue, { sortKeys: false, allowNonFinite: true });
}

export function processIO(): CommandIO {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    json: (doc) => process.stdout.write(`${jsonDocument(doc)}\n`),
    readStdin: () => readFileSync(0),
    isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}
