import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { recordRunEvent, runJournalFile, verifyRunJournal, type RunRecordOptions } from '../src/runs';
import { refPython } from './helpers/python';
import { tempDir } from './helpers/tmp';

/**
 * Run journals are read as the reference reads them (docs/journal.md, "Reading
 * rules"): lines split at \n, \r\n or a bare \r, stripped with str.strip(), blank
 * ones skipped; --strict notes what is not json.dumps(row). The Python model of
 * the reference (test/python/ref_run_journal.py) agrees.
 */
const base = tempDir('stepchain-runs-reading-');
const off: RunRecordOptions = { env: { STEPCHAIN_AUDIT: 'off' } };

function sample(): string {
  const root = path.join(base, `p${Date.now()}${Math.random()}`);
  mkdirSync(root, { recursive: true });
  for (let i = 0; i < 4; i++) recordRunEvent(root, 'run-1', 'tool_call', { i, text: `t${i}` }, off);
  return runJournalFile(root, 'run-1');
}

it('blank lines, whitespace around rows and CR line endings verify; strict notes each', () => {
  const file = sample();
  const rows = readFileSync(file, 'utf8').split('\n').slice(0, -1);
  writeFileSync(file, `\n${rows[0]}\r\n \t\n\x0c${rows[1]}  \n\r${rows[2]}\r${rows[3]}\n\n`);
  const r = verifyRunJournal(file);
  expect(r.errors).toEqual([]);
  expect(r).toMatchObject({ ok: true, count: 4 });
  const strict = verifyRunJournal(file, { strict: true });
  // A run of one kind on consecutive lines is one entry (docs/journal.md, "Fault output").
  expect(strict.errors.map((e) => [e.line, e.last_line ?? e.line, e.kind])).toEqual([
    [1, 6, 'non_canonical'],
    [8, 8, 'non_canonical'],
  ]);
  expect(strict).toMatchObject({ fault_count: 7, errors_omitted: 0 });
  const py = JSON.parse(refPython('ref_run_journal.py', ['verify', file])) as { ok: boolean };
  expect(py.ok).toBe(true);
});

it('a line that is not a row is still a fault, and does not advance the index', () => {
  const file = sample();
  const rows = readFileSync(file, 'utf8').split('\n').slice(0, -1);
  writeFileSync(file, `${rows[0]}\n\nnot json\n${rows[1]}\n`);
  expect(verifyRunJournal(file).errors.map((e) => [e.line, e.kind])).toEqual([[3, 'malformed_json']]);
});
