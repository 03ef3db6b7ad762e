import path from 'node:path';
import { decodeUtf8, JsonParseError, parse, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import { Cas, casDir, encodeRow, refuseRemovedJournalAt, resolveJournal, type StepInput } from '../../journal';
import { recordStep } from '../../record';
import type { Command } from '../command';
import { INPUT_BOUNDS, JSON_OPTION, readInputFile, ROOT_OPTION, rootOf, writeOptions } from '../common';
import { jsonDocument, outputText } from '../io';

function jsonOption(name: string, text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  try {
    return parse(text);
  } catch (e) {
    if (e instanceof JsonParseError) throw new InputError(`--${name}: not JSON: ${e.message}`);
    throw e;
  }
}

export const appendCommand: Command = {
  name: ['append'],
  usage:
    '<agent> [--root DIR] [--input FILE|-] [--input-hash HEX] [--model M] [--prompt TEXT | --prompt-file FILE] ' +
    '[--tool-call JSON] [--tool-result JSON] [--blob FILE]... [--no-snapshot] [--json]',
  summary: "Append one step to an agent's journal (recovering and verifying the chain first) and print the row.",
  description:
    '<agent> is an agent id (its journal is <root>/.sdd/runtime/journal/<agent>/000000.jsonl, created on the first append) ' +
    'or a journal directory. The chain is recovered and verified first: a journal that does not verify is never extended. ' +
    'In a git work tree the files as they are now are recorded as the snapshot of this step (a fork from this step restores them).',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    input: {
      kind: 'value',
      value: 'FILE|-',
      stdin: true,
      description:
        'The input blob (its SHA-256 is the input_hash; stored in the CAS), at most 128 MiB. `-` reads stdin.',
    },
    'input-hash': {
      kind: 'value',
      value: 'HEX',
      description: 'The input_hash as given (64 lowercase hex digits) when the input itself is not at hand.',
    },
    model: { kind: 'value', value: 'M', emptyOk: true, description: 'The model that ran the step.' },
    prompt: { kind: 'value', value: 'TEXT', emptyOk: true, description: 'The prompt text.' },
    'prompt-file': {
      kind: 'value',
      value: 'FILE',
      stdin: true,
      description: 'Read the prompt from a file, byte for byte (UTF-8), at most 64 MiB. `-` reads stdin.',
    },
    'tool-call': { kind: 'value', value: 'JSON', description: 'The tool call, as JSON (numbers kept exactly).' },
    'tool-result': { kind: 'value', value: 'JSON', description: 'The tool result, as JSON.' },
    blob: {
      kind: 'list',
      value: 'FILE',
      stdin: true,
      description: 'An extra blob to store in the CAS and list in blob_refs, at most 128 MiB (`-` reads stdin).',
    },
    'no-snapshot': { kind: 'flag', description: 'Do not record a git snapshot of the work tree for this step.' },
  },
  examples: [
    {
      run: 'stepchain append agent-1 --model claude-3-7-sonnet-20250219 --prompt "Fix the bug" --tool-call \'{"name":"edit_file"}\'',
      what: 'record one step of agent-1',
    },
    { run: 'git diff | stepchain append agent-1 --input - --prompt "review"', what: 'the input blob from stdin' },
  ],
  exitCodes: {
    0: 'the step was appended',
    1: 'the journal does not verify (nothing appended), or it is locked',
    2: 'usage or input error (bad id, unreadable file, bad JSON)',
  },
  run(args, io) {
    const [target] = args.positionals;
    if (target === undefined) throw new InputError('append: missing <agent>');
    if (args.positionals.length > 1)
      throw new InputError(`append: unexpected argument ${JSON.stringify(args.positionals[1])}`);
    // A removed fork's old worktree is refused by name (its tombstone) before it is looked up as a project.
    const explicitRoot = args.values.get('root');
    if (explicitRoot !== undefined) refuseRemovedJournalAt(path.resolve(io.cwd, explicitRoot), target);
    const root = rootOf(args, io, { create: true });
    if (args.values.has('prompt') && args.values.has('prompt-file'))
      throw new InputError('append: give --prompt or --prompt-file, not both');
    if (args.values.has('input') && args.values.has('input-hash'))
      throw new InputError('append: give --input or --input-hash, not both');
    const step: StepInput = {};
    const tc = jsonOption('tool-call', args.values.get('tool-call'));
    const tr = jsonOption('tool-result', args.values.get('tool-result'));
    if (tc !== undefined) step.tool_call = tc;
    if (tr !== undefined) step.tool_result = tr;
    const model = args.values.get('model');
    if (model !== undefined) step.model = model;
    const promptFile = args.values.get('prompt-file');
    if (promptFile !== undefined) {
      const bytes = readInputFile(promptFile, io, 'prompt file', INPUT_BOUNDS.prompt);
      try {
        step.prompt = decodeUtf8(bytes);
      } catch {
        throw new InputError(`${promptFile}: prompt file is not valid UTF-8`);
      }
    } else if (args.values.has('prompt')) {
      step.prompt = args.values.get('prompt')!;
    }
    const input = args.values.get('input');
    if (input !== undefined) step.input = readInputFile(input, io, 'input', INPUT_BOUNDS.blob);
    const inputHash = args.values.get('input-hash');
    if (inputHash !== undefined) step.inputHash = inputHash;
    const blobs = args.lists.get('blob') ?? [];
    if (blobs.length > 0) step.blobs = blobs.map((b) => readInputFile(b, io, 'blob', INPUT_BOUNDS.blob));

    // A row --json could not print (too deep once escaped by the output rule) is refused before it is written: an
    // exit of 2 must not leave a step appended (a retry would append it twice).
    if (args.flags.has('json')) jsonDocument({ tool_call: tc ?? null, tool_result: tr ?? null });
    // An agent id (validated before it becomes a path), or a journal directory.
    const { dir, root: journalRoot, laidOut } = resolveJournal(target, root, false);
    if (target.endsWith('.jsonl'))
      throw new InputError(`append: give an agent id or a journal directory, not a file (${target})`);
    // The snapshot and the audit event go to the journal's project, wherever the command runs.
    const { row, journal, warnings, notes, snapshot } = recordStep(dir, step, {
      root: journalRoot,
      ...writeOptions(io),
      snapshot: !args.flags.has('no-snapshot'),
      // A journal outside the project layout stores its blobs in the --root project's CAS.
      ...(laidOut ? {} : { cas: new Cas(casDir(root)) }),
    });
    for (const w of warnings) io.err(`stepchain: warning: ${w}`);
    for (const n of notes) io.err(`stepchain: note: ${n}`);
    if (args.flags.has('json')) {
      // The row as written (the journal's line, byte for byte, but for an object whose only member is `$nonfinite`,
      // escaped by the output rule: src/canonical/output.ts): the one --json document without `ok`, which only an
      // exit code of 0 prints (an error is the error document).
      io.out(outputText(encodeRow(row)));
    } else {
      io.out(`appended step ${row.seq} to ${journal.file}`);
      io.out(`  step_hash  ${row.step_hash}`);
      io.out(`  prev_hash  ${row.prev_hash}`);
      io.out(`  input_hash ${row.input_hash}`);
      if (row.blob_refs.length > 0) io.out(`  blob_refs  ${row.blob_refs.join(' ')}`);
      if (snapshot !== undefined) io.out(`  snapshot   ${snapshot.ref} ${snapshot.commit}`);
    }
    return 0;
  },
};
