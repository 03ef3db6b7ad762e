import { existsSync, mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { handleGeminiHook } from '../src/agents/gemini/hook';
import { CHECK_BYTES } from '../src/agents/window-index';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * The two checks that decide whether the transcript's saved index may be used for a new read (`usable` in
 * src/agents/window-index.ts): the file's identity (dev/ino) and the SHA-256 of the bytes the index last checked.
 * The random histories of gemini.index-differential.test.ts did not catch either check removed (3 x 300 runs): a
 * stale index still reads each line's bytes from the file, so its answer differs only when the rewrite moves a
 * wanted call to a line the index has no row for. Each case here makes that happen: line X held a call the hook
 * looked up earlier (`pwd`) and is rewritten, at the same length, to hold a new call (`x2`) with the arguments of
 * line Y's call (`cat`). A fresh read of the file answers x2 (X comes first); the stale index has a `cat` row only
 * at Y and answers y1. The hook through its index (`fast`) must record what the hook reading the whole transcript
 * with no key and no index (`full`) records.
 */
const dir = tempDir('stepchain-gemini-widx-');
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
/** The transcript's atime and mtime, whole seconds (kept exactly by every file system), before and after a rewrite. */
const SAME_TIME = 1_780_000_000;

const record = (id: string, command: string): string =>
  `${JSON.stringify({
    id: 'r',
    type: 'gemini',
    model: 'm1',
    content: '',
    toolCalls: [{ id, name: 'run_shell_command', args: { command } }],
  })}\n`;

/** Two roots hooked to one transcript; `rewrite` changes the transcript between the index's first read and the next. */
function run(long: boolean, rewrite: (transcript: string, before: string, after: string) => void) {
  const base = freshDir(dir, 'c');
  const home = path.join(base, 'home');
  const chats = path.join(home, '.gemini', 'tmp', 'p', 'chats');
  mkdirSync(chats, { recursive: true });
  const transcript = path.join(chats, 'session-x.jsonl');
  const user = `${JSON.stringify({ id: 'u', type: 'user', content: [{ text: 'y'.repeat(1000) }] })}\n`;
  const head = `${JSON.stringify({ sessionId: SID, projectHash: 'p' })}\n`;
  // Long: more than the hashed bytes after X, so the index's check starts after X (all ASCII: bytes = chars).
  const tail = `${user.repeat(long ? Math.ceil(CHECK_BYTES / user.length) + 1 : 0)}${record('y1', 'cat')}`;
  const before = `${head}${record('x1', 'pwd')}${tail}`;
  const after = `${head}${record('x2', 'cat')}${tail}`;
  expect(after.length).toBe(before.length); // every line where it was: only X's bytes differ
  expect(tail.length > CHECK_BYTES).toBe(long);
  writeFileSync(transcript, before);
  utimesSync(transcript, SAME_TIME, SAME_TIME);
  const roots = { fast: path.join(base, 'fast'), full: path.join(base, 'full') };
  for (const r of Object.values(roots)) mkdirSync(path.join(r, '.git'), { recursive: true });
  const send = (root: string, event: string, extra: Record<string, unknown> = {}) =>
    handleGeminiHook(
      Buffer.from(
        JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: root, hook_event_name: event, ...extra }),
      ),
      {
        env: {
          HOME: home,
          STEPCHAIN_AUDIT: 'off',
          STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(base, 'state', 'checkpoint.key'),
          ...(root === roots.full ? { STEPCHAIN_CHECKPOINT: 'off' } : {}),
        },
        root,
        snapshot: false,
      },
    );
  const both = (event: string, extra: Record<string, unknown> = {}) => {
    for (const root of [roots.fast, roots.full]) expect(send(root, event, extra).errors).toEqual([]);
  };
  const tool = (command: string) =>
    both('AfterTool', { tool_name: 'run_shell_command', tool_input: { command }, tool_response: { llmContent: 'ok' } });
  const ids = (root: string) =>
    readVerifiedJournal(journalFile(root, `gemini-${SID}`)).entries.map((e) => (e.row.tool_call as { id: unknown }).id);

  // The first look writes the transcript's index (fast root): rows for X (pwd) and Y (cat), stopping at the end.
  tool('pwd');
  both('PreCompress');
  expect(existsSync(path.join(roots.fast, '.sdd', 'runtime', 'gemini', SID, 'transcript.v2.index'))).toBe(true);
  expect(ids(roots.fast)).toEqual(['x1']);
  rewrite(transcript, before, after);
  expect(readFileSync(transcript, 'utf8')).toBe(after);
  tool('cat');
  both('PreCompress');
  // Through the stale index: ['x1', 'y1'].
  expect(ids(roots.fast)).toEqual(ids(roots.full));
  expect(ids(roots.full)).toEqual(['x1', 'x2']);
}

test('a transcript rewritten in place, same size, changed inside the bytes the index checked: the fresh read answers', () => {
  // Small: the index checked the whole file (its check starts at 0), X inside it. Same inode, same length, and the
  // same mtime (set back, as a careful editor or `touch -r` does): size and times together do not say "unchanged".
  run(false, (transcript, _before, after) => {
    const was = statSync(transcript, { bigint: true });
    writeFileSync(transcript, after);
    utimesSync(transcript, SAME_TIME, SAME_TIME);
    const now = statSync(transcript, { bigint: true });
    expect([now.ino, now.size, now.mtimeNs]).toEqual([was.ino, was.size, was.mtimeNs]);
  });
});

test('a transcript replaced by another file whose checked bytes are the same, its earlier ones not: the fresh read answers', () => {
  // More than CHECK_BYTES of lines after X: the index's check starts after X, so the bytes it hashed are the same in the new
  // file. Written anew under another name and renamed over the old one (kept: its inode is not reused).
  run(true, (transcript, _before, after) => {
    renameSync(transcript, `${transcript}.old`);
    writeFileSync(`${transcript}.tmp`, after);
    renameSync(`${transcript}.tmp`, transcript);
  });
});
