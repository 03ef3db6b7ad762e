import fc from 'fast-check';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { handleGeminiHook } from '../src/agents/gemini/hook';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * Gemini CLI's hook through its indexes (the transcript's and the journal's) against the same hook reading both
 * whole (STEPCHAIN_CHECKPOINT=off: no key, no index): over any history of tool calls, transcript lines written in
 * torn pieces, records written again, rewinds, the session file rewritten under a new name, and indexes dropped,
 * flipped, restored from earlier or taken from another session, both record the same steps, link the same call
 * ids and leave the same calls pending.
 */
const dir = tempDir('stepchain-gemini-diff-');
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
let n = 0;
const stats = { steps: 0, linked: 0 };
// The histories do link calls (not only record them with id null).
afterAll(() => expect(stats.linked).toBeGreaterThan(0));

type Call = { id: string; name: string; args: Record<string, unknown> };
type Op =
  | { op: 'tool'; name: string; args: Record<string, unknown> }
  | { op: 'record'; calls: Call[]; model: string; cut: number | null } // cut -1: all but the newline
  | { op: 'finish' }
  | { op: 'noise'; what: 'user' | 'rewind' | 'set' | 'junk' }
  | { op: 'rename' }
  | { op: 'flush'; event: 'PreCompress' | 'AfterAgent' | 'AfterTool' }
  | {
      op: 'index';
      which: 'transcript.v2.index' | 'journal.v2.index';
      how: 'drop' | 'flip' | 'save' | 'stale' | 'foreign';
    };

const NAMES = ['run_shell_command', 'write_file'];
const ARGS = [{ command: 'ls' }, { command: 'echo "a/b"' }, { command: 'gr\u00fcn' }, {}, { n: 1 }];
const IDS = ['c1', 'c"2', 'c\u00e93', `c${'x'.repeat(300)}`, 'c\\5', 'c/6'];

const call: fc.Arbitrary<Call> = fc.record({
  id: fc.constantFrom(...IDS),
  name: fc.constantFrom(...NAMES),
  args: fc.constantFrom(...ARGS),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('tool' as const),
      name: fc.constantFrom(...NAMES),
      args: fc.constantFrom(...ARGS),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('record' as const),
      calls: fc.array(call, { minLength: 1, maxLength: 3 }),
      model: fc.constantFrom('m1', 'm2'),
      cut: fc.oneof(fc.constant(null), fc.constant(-1), fc.nat()),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'finish' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('noise' as const), what: fc.constantFrom('user', 'rewind', 'set', 'junk') }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'rename' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('flush' as const),
      event: fc.constantFrom('PreCompress', 'AfterAgent', 'AfterTool'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('index' as const),
      which: fc.constantFrom('transcript.v2.index', 'journal.v2.index'),
      how: fc.constantFrom('drop', 'flip', 'save', 'stale', 'foreign'),
    }),
  },
);

/** Equal as JSON text (plain data here: strings, numbers, null, arrays and objects written in the same order). */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

test('the hook through its indexes records what the hook reading everything records', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), (history) => {
      const base = freshDir(dir, `h${n++}`);
      const home = path.join(base, 'home');
      const chats = path.join(home, '.gemini', 'tmp', 'p', 'chats');
      mkdirSync(chats, { recursive: true });
      const transcript = path.join(chats, 'session-x.jsonl');
      writeFileSync(transcript, `${JSON.stringify({ sessionId: SID, projectHash: 'p' })}\n`);
      const roots = { fast: path.join(base, 'fast'), full: path.join(base, 'full'), other: path.join(base, 'other') };
      for (const r of Object.values(roots)) mkdirSync(path.join(r, '.git'), { recursive: true });
      const env = (off: boolean): NodeJS.ProcessEnv => ({
        HOME: home,
        STEPCHAIN_AUDIT: 'off',
        STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(base, 'state', 'checkpoint.key'),
        ...(off ? { STEPCHAIN_CHECKPOINT: 'off' } : {}),
      });
      const send = (root: string, event: string, extra: Record<string, unknown> = {}) =>
        handleGeminiHook(
          Buffer.from(
            JSON.stringify({
              session_id: SID,
              transcript_path: transcript,
              cwd: root,
              hook_event_name: event,
              ...extra,
            }),
          ),
          { env: env(root === roots.full), root, snapshot: false },
        );
      const both = (event: string, extra: Record<string, unknown> = {}) => {
        const a = send(roots.fast, event, extra);
        const b = send(roots.full, event, extra);
        // Jest's expect costs more than the comparison (thousands of calls): it runs only on a difference, for its diff.
        if (!same(a.errors, b.errors)) expect(a.errors).toEqual(b.errors);
      };
      const runtime = path.join(roots.fast, '.sdd', 'runtime', 'gemini', SID);
      let torn = '';
      const read = new Map<string, { bytes: Buffer; rows: unknown[][] }>();
      for (const o of history) {
        if (o.op === 'tool')
          both('AfterTool', { tool_name: o.name, tool_input: o.args, tool_response: { llmContent: 'ok' } });
        else if (o.op === 'record') {
          const line = `${torn}${JSON.stringify({ id: 'r', type: 'gemini', model: o.model, content: '', toolCalls: o.calls })}\n`;
          // Written in two pieces (the rest of a torn one first), a look possibly between them.
          const cut = o.cut === null ? line.length : o.cut < 0 ? line.length - 1 : o.cut % line.length;
          appendFileSync(transcript, line.slice(0, cut));
          torn = line.slice(cut);
        } else if (o.op === 'finish') {
          appendFileSync(transcript, torn);
          torn = '';
        } else if (o.op === 'noise') {
          const line = {
            user: JSON.stringify({ id: 'u', type: 'user', content: [{ text: 'x' }] }),
            rewind: JSON.stringify({ $rewindTo: 'r' }),
            set: JSON.stringify({ $set: { summary: 'toolCalls' } }),
            junk: '{"type":"gemini","toolCalls":[',
          }[o.what];
          if (torn === '') appendFileSync(transcript, `${line}\n`);
        } else if (o.op === 'rename') {
          // Gemini CLI's rewrite: the whole file anew, under a temporary name renamed over the old one.
          appendFileSync(transcript, torn);
          torn = '';
          const bytes = readFileSync(transcript);
          renameSync(transcript, `${transcript}.unreadable-${n}`);
          writeFileSync(`${transcript}.tmp`, bytes);
          renameSync(`${transcript}.tmp`, transcript);
        } else if (o.op === 'flush') {
          both(o.event, o.event === 'AfterTool' ? { tool_name: 'noop', tool_input: { q: 1 }, tool_response: {} } : {});
        } else {
          const idx = path.join(runtime, o.which);
          const saved = path.join(base, `saved-${o.which}`);
          if (o.how === 'drop') rmSync(idx, { force: true });
          else if (o.how === 'flip' && existsSync(idx)) {
            const b = readFileSync(idx);
            b[b.length >> 1]! ^= 4;
            writeFileSync(idx, b);
          } else if (o.how === 'save' && existsSync(idx)) copyFileSync(idx, saved);
          else if (o.how === 'stale' && existsSync(saved)) copyFileSync(saved, idx);
          else if (o.how === 'foreign') {
            // The other project's index of the same session (same key): another journal, the same transcript.
            send(roots.other, 'PreCompress');
            const theirs = path.join(roots.other, '.sdd', 'runtime', 'gemini', SID, o.which);
            if (existsSync(theirs) && existsSync(runtime)) copyFileSync(theirs, idx);
          }
        }
        const steps = (root: string) => {
          const f = journalFile(root, `gemini-${SID}`);
          if (!existsSync(f)) return [];
          // Most ops append nothing: the same bytes verify the same (the whole journal was verified again per op).
          const bytes = readFileSync(f);
          const last = read.get(root);
          if (last?.bytes.equals(bytes)) return last.rows;
          const rows = readVerifiedJournal(f).entries.map((e) => [e.row.tool_call, e.row.model, e.row.tool_result]);
          read.set(root, { bytes, rows });
          return rows;
        };
        const pending = (root: string) => {
          const p = path.join(root, '.sdd', 'runtime', 'gemini', SID, 'pending');
          return existsSync(p) ? readdirSync(p).length : 0;
        };
        // Each journal read once per op (it was read three times over for the counts).
        const fast = steps(roots.fast);
        const full = steps(roots.full);
        if (!same(fast, full)) expect(fast).toEqual(full);
        stats.steps += fast.length;
        stats.linked += fast.filter((s) => (s[0] as { id: unknown }).id !== null).length;
        const waiting = [pending(roots.fast), pending(roots.full)];
        if (waiting[0] !== waiting[1]) expect(waiting[0]).toBe(waiting[1]);
      }
    }),
    { numRuns: 300 },
  );
});
