import { parseArgs, wantsJson } from './args';
import type { Command } from './command';
import type { CliRunner } from './in-process';
import { documentCut, StreamedDocument, WithStreamedArrays, type CommandIO } from './io';
import { asStepchainError, errorDocument, fieldWords, kebabField, StepchainError } from '../errors';

/**
 * Running one chosen command: its arguments parsed, its one `--json` document held
 * until it returns, an error worded as one line, the exit code capped. `runCli`
 * (./main.ts) does it for every command once it has found one; the hook entry
 * (./hook-entry.ts) does it for `hook <agent>` without loading the rest of the CLI.
 */
export async function runCommand(command: Command, rest: string[], io: CommandIO, cli: CliRunner): Promise<number> {
  // `--json` anywhere before `--` asks for a JSON error too, even when the command line itself is wrong.
  const json =
    wantsJson(rest, command.options) ||
    rest.slice(0, rest.includes('--') ? rest.indexOf('--') : rest.length).includes('--json');
  // The command's one JSON document is held until it returns, so that it can say `ok` by the exit code,
  // and an error thrown after it leaves the error document alone on stdout (exactly one document).
  let held: { doc: unknown } | undefined;
  let code: number;
  try {
    const args = parseArgs(rest, command.options, command.name.join(' '));
    code = await command.run(args, { ...io, json: (doc) => (held = { doc }) }, cli);
    if (held !== undefined) io.json(withOk(held.doc, code));
  } catch (e) {
    // The library names a wrong option by its field; the CLI says the flag.
    code = reportError(
      fieldWords(e, (f) => `--${command.fields?.[f] ?? kebabField(f)}`),
      io,
      json,
    );
  }
  return command.maxExitCode === undefined ? code : Math.min(code, command.maxExitCode);
}

/** Prints an error: one line on stderr, and with `--json` also the error document on stdout. */
export function reportError(thrown: unknown, io: CommandIO, json: boolean): number {
  // An operating-system error (ENOSPC, EACCES, EROFS, ...) is one line naming the path, exit 2.
  const e = asStepchainError(thrown) ?? thrown;
  const doc = errorDocument(e);
  if (json && !documentCut(thrown)) io.json(doc);
  if (e instanceof StepchainError) {
    io.err(`stepchain: ${e.message}`);
    return e.exitCode;
  }
  // An unexpected failure is still one line; STEPCHAIN_DEBUG shows the stack.
  io.err(`stepchain: internal error: ${doc.error.message}`);
  if (io.env.STEPCHAIN_DEBUG) for (const l of String((e as Error | undefined)?.stack).split('\n')) io.err(l);
  return 1;
}

/**
 * Every `--json` document says whether what the command checked holds: `ok` first, true exactly when the
 * exit code is 0, unless the document states its own (verify, check, diff: the same meaning), which is
 * moved first.
 */
export function withOk(doc: unknown, code: number): unknown {
  const ok = code === 0;
  if (doc instanceof StreamedDocument)
    return new StreamedDocument(withOk(doc.head, code) as object, doc.key, doc.items, doc.tail);
  if (doc instanceof WithStreamedArrays) return new WithStreamedArrays(withOk(doc.doc, code));
  if (doc instanceof Map)
    return new Map([['ok', doc.has('ok') ? doc.get('ok') : ok], ...(doc as Map<string, unknown>)]);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return doc;
  const own = Object.prototype.hasOwnProperty.call(doc, 'ok') ? (doc as { ok: unknown }).ok : ok;
  return { ok: own, ...(doc as Record<string, unknown>) };
}
