import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { journalDir, journalFile, readVerifiedJournal } from '../src/journal';
import { forgetHookCalls, hookCallsOf, type HookCalls } from '../src/proxy/hook-calls';
import { toolCallIds } from '../src/runs/exchange-links';
import { recordStep } from '../src/record';
import { freshDir, tempDir } from './helpers/tmp';
import { tearLastLine } from './helpers/torn-line';

/**
 * `record` links exchanges to hook steps by the tool-call ids of a hook journal, read as it grows (only the lines
 * appended since the last look walked). Whatever happened to the journal between two looks, a look gives what a
 * whole verified read of it gives, or throws as that read does.
 */
const ENV = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const base = tempDir('stepchain-hook-calls-');
const fresh = (): string => freshDir(base);

/** The ids of a hook journal as a whole verified read gives them. */
function wholeRead(file: string): HookCalls {
  const calls: HookCalls = new Map();
  for (const { row } of readVerifiedJournal(file).entries)
    for (const id of toolCallIds(row.tool_call))
      calls.set(id, [...(calls.get(id) ?? []), { seq: row.seq, step_hash: row.step_hash }]);
  return calls;
}

const plain = (m: HookCalls): unknown => Object.fromEntries([...m].map(([k, v]) => [k, v.map((x) => ({ ...x }))]));

test('as the journal grows (rows, a line half written, an id named twice), each look is the whole read', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constant('row'), fc.constant('torn'), fc.constant('dup'), fc.constant('look')), {
        minLength: 1,
        maxLength: 14,
      }),
      (ops) => {
        forgetHookCalls();
        const root = fresh();
        const dir = journalDir(root, 'hook');
        const file = journalFile(root, 'hook');
        let n = 0;
        let torn = '';
        const append = (id: string): void => {
          if (torn !== '') {
            // The writer finishes the line it had begun: the bytes it held back arrive.
            appendFileSync(file, torn);
            torn = '';
          }
          recordStep(dir, { tool_call: { id, name: 'Bash' }, model: 'm' }, { root, env: ENV, snapshot: false });
        };
        for (const op of ops) {
          if (op === 'row') append(`call_${n++}`);
          else if (op === 'dup') append('call_0');
          else if (op === 'torn' && torn === '' && n > 0) {
            // Half of a line, as a writer's first write of it: read neither as a step nor as a fault.
            torn = tearLastLine(file, 40);
          }
          if (n === 0) continue;
          if (torn === '') expect(plain(hookCallsOf(file))).toEqual(plain(wholeRead(file)));
          else {
            // A half line is not a step yet (the whole read would call it a fault): the journal before it.
            const text = readFileSync(file, 'utf8');
            const before = path.join(root, 'before.jsonl');
            writeFileSync(before, text.slice(0, text.lastIndexOf('\n') + 1));
            expect(plain(hookCallsOf(file))).toEqual(plain(wholeRead(before)));
          }
        }
      },
    ),
    { numRuns: 25 },
  );
});

test('a journal replaced by another, or edited where it was read: read again from its start', () => {
  forgetHookCalls();
  const root = fresh();
  const file = journalFile(root, 'hook');
  for (const id of ['a', 'b'])
    recordStep(journalDir(root, 'hook'), { tool_call: { id } }, { root, env: ENV, snapshot: false });
  expect([...hookCallsOf(file).keys()]).toEqual(['a', 'b']);

  const other = fresh();
  for (const id of ['x', 'y', 'z'])
    recordStep(journalDir(other, 'hook'), { tool_call: { id } }, { root: other, env: ENV, snapshot: false });
  renameSync(journalFile(other, 'hook'), file);
  expect([...hookCallsOf(file).keys()]).toEqual(['x', 'y', 'z']);

  // The last row's id edited in place (same length): its hash no longer holds; the whole read says so.
  writeFileSync(file, readFileSync(file, 'utf8').replace('"id":"z"', '"id":"w"'));
  expect(() => hookCallsOf(file)).toThrow(/step_hash_mismatch/);
});
