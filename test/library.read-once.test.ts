import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent, verifyAuditLog } from '../src/audit';
import { canonical, parse, type JsonValue } from '../src/canonical';
import { InputError } from '../src/errors';
import { Journal, verifyJournalFile } from '../src/journal';
import { recordRunEvent, verifyRunJournal, type RunRecordOptions } from '../src/runs';
import { refPython } from './helpers/python';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * A library caller's values are read once (readOnce, src/canonical/read-once.ts): a writer hashes a value and then
 * encodes its row from it, so a value that reads differently each time (a getter, a Proxy) gave a row whose stored
 * hash was not the hash of its own bytes: `Journal.append` wrote a step that `verify` (and python3's peer) call
 * tampered, then appended the next step onto it; the run journal and the audit log did the same. And an integer the
 * readers refuse (more than 4,300 digits, as Python does) was written as a row `verify` calls malformed.
 */
const base = tempDir();
const off: RunRecordOptions = { env: { STEPCHAIN_AUDIT: 'off' } };

/** An object whose `n` is another number at every read. */
function shifting(): JsonValue {
  let reads = 0;
  return {
    get n() {
      return reads++;
    },
  } as unknown as JsonValue;
}

describe('values built in code are read once', () => {
  it('a journal step: the row written verifies (here and in python3), and is the row returned', () => {
    const dir = path.join(freshDir(base), '.sdd', 'runtime', 'journal', 'g');
    const j = Journal.open(dir);
    const row = j.append({ prompt: 'p', tool_call: shifting(), tool_result: [shifting()] });
    j.append({ prompt: 'next' });
    const file = path.join(dir, '000000.jsonl');
    expect(verifyJournalFile(file)).toMatchObject({ ok: true, steps: 2, errors: [] });
    expect(JSON.parse(refPython('stepchain_ref.py', ['verify', file]))).toMatchObject({ ok: true, steps: 2 });
    const first = readFileSync(file, 'utf8').split('\n')[0]!;
    const written = parse(first) as Record<string, JsonValue>;
    expect(canonical(row.tool_call)).toBe(canonical(written.tool_call!));
    expect(canonical(row.tool_result)).toBe(canonical(written.tool_result!));
  });

  it('a journal step with an integer the readers refuse is refused before anything is written', () => {
    const dir = path.join(freshDir(base), '.sdd', 'runtime', 'journal', 'big');
    const j = Journal.open(dir);
    expect(() => j.append({ tool_call: 10n ** 4300n })).toThrow(InputError);
    expect(() => j.append({ tool_call: 10n ** 4300n })).toThrow(/tool_call: .*4301 digits/);
    const file = path.join(dir, '000000.jsonl');
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe('');
    // The largest the readers take is written, and verifies.
    j.append({ tool_call: 10n ** 4299n });
    expect(verifyJournalFile(file)).toMatchObject({ ok: true, steps: 1 });
  });

  it('a run journal event: the row written verifies', () => {
    const root = freshDir(base);
    const payload = new Map<string, JsonValue>([
      ['a', shifting()],
      ['b', [shifting()]],
    ]);
    const { file } = recordRunEvent(root, 'r1', 'task_claimed', payload, off);
    recordRunEvent(root, 'r1', 'task_done', { ok: true }, off);
    expect(verifyRunJournal(file)).toMatchObject({ ok: true, count: 2, errors: [] });
  });

  it('an audit event: the entry written verifies', () => {
    const dir = path.join(freshDir(base), 'audit');
    mkdirSync(dir, { recursive: true });
    const key = Buffer.from('0123456789abcdef'.repeat(4));
    const fields = { actor: 'a', resource_type: 't', resource_id: 'i', details: { x: shifting() } };
    appendAuditEvent(dir, key, 'replay.step', fields);
    appendAuditEvent(dir, key, 'replay.step', { ...fields, details: {} });
    expect(verifyAuditLog(dir, key)).toMatchObject({ ok: true, errors: [] });
  });
});
