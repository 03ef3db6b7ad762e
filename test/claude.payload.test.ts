import { parseHookPayload } from '../src/agents/claude/payload';
import { InputError } from '../src/errors';

/**
 * The payload's own rules, at the layer that reads it: where a session is recorded (its cwd) and the transcript it
 * names are absolute paths, or the payload is refused with one line (later layers refusing a relative cwd too does
 * not make this one's check redundant: each caller of parseHookPayload relies on it).
 */
const base = {
  session_id: '0b0b0b0b-1111-4222-8333-444444444444',
  hook_event_name: 'PostToolUse',
  cwd: '/work/project',
  transcript_path: '/home/u/.claude/projects/p/s.jsonl',
};
const parse = (p: object) => parseHookPayload(Buffer.from(JSON.stringify(p)));

test('an absolute cwd and transcript path are taken (the cwd normalised)', () => {
  const p = parse({ ...base, cwd: '/work/./project/' });
  expect([p.cwd, p.transcriptPath, p.sessionId, p.event]).toEqual([
    '/work/project',
    base.transcript_path,
    base.session_id,
    'PostToolUse',
  ]);
});

test.each([
  ['no cwd', { cwd: undefined }, '<stdin>: hook payload has no absolute cwd'],
  ['a relative cwd', { cwd: 'project' }, '<stdin>: hook payload has no absolute cwd'],
  ['a cwd of "."', { cwd: '.' }, '<stdin>: hook payload has no absolute cwd'],
  ['a cwd up and out', { cwd: '../elsewhere' }, '<stdin>: hook payload has no absolute cwd'],
  ['a cwd with a NUL', { cwd: '/work/pro\u0000ject' }, '<stdin>: hook payload has no absolute cwd'],
  ['a cwd that is not a string', { cwd: 42 }, '<stdin>: hook payload has no absolute cwd'],
  ['a relative transcript path', { transcript_path: 's.jsonl' }, '<stdin>: transcript_path is not an absolute path'],
  [
    'a transcript path with a NUL',
    { transcript_path: '/tmp/s\u0000.jsonl' },
    '<stdin>: transcript_path is not an absolute path',
  ],
])('%s is refused with one line', (_what, change, message) => {
  const payload = { ...base, ...change };
  expect(() => parse(payload)).toThrow(InputError);
  expect(() => parse(payload)).toThrow(message);
});
