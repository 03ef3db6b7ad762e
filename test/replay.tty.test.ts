import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { publishReceipt } from '../src/receipt';
import { cliPath } from './helpers/paths';
import { record, replayProject } from './helpers/replay-fixture';

/**
 * The interactive replay in a real terminal: `stepchain replay` runs in a
 * detached tmux session of a fixed size, keys are sent with send-keys, and the
 * assertions read the screen with capture-pane (polling until the expected text
 * shows, with a generous timeout; no timings are asserted). Run `npm run build` first.
 */

// Polling a real terminal on a busy machine: generous per-test time (no timing is asserted).
jest.setTimeout(180000);

const socket = `stepchain-replay-${process.pid}`;
const tmux = (args: string[]): string => {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

if (spawnSync('tmux', ['-V']).status !== 0)
  throw new Error('these tests need tmux (apt-get install -y tmux; .ci/run installs it)');

/** The child of a pane's shell: the stepchain process (read from /proc, no procps needed). */
function childOf(pid: string): number {
  for (const d of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      if (ppid === pid) return Number(d);
    } catch {
      /* the process ended meanwhile */
    }
  }
  throw new Error(`no child of ${pid}`);
}

const root = replayProject();
record(root, 'agent-demo');
afterAll(() => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
});

const q = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
let sessions = 0;

/** Starts `stepchain <args>` in a new session; the shell then prints its exit code and whether the tty is back in cooked mode. */
function start(args: string[], width = 100, height = 30): string {
  const name = `s${++sessions}`;
  const cmd = `${q(process.execPath)} ${q(cliPath)} ${args.map(q).join(' ')}; echo "EXIT:$?"; stty -a | grep -q ' icanon' && echo COOKED; sleep 600`;
  tmux([
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    String(width),
    '-y',
    String(height),
    '-c',
    root,
    '-e',
    'STEPCHAIN_AUDIT=off',
    cmd,
  ]);
  return name;
}

const screen = (name: string): string => tmux(['capture-pane', '-p', '-t', name]);
const keys = (name: string, ...k: string[]): void => void tmux(['send-keys', '-t', name, ...k]);
const literal = (name: string, text: string): void => void tmux(['send-keys', '-t', name, '-l', text]);
const paneVar = (name: string, v: string): string => tmux(['display-message', '-p', '-t', name, `#{${v}}`]).trim();

/** Polls the screen until `pred` holds (generous timeout); returns the screen. */
async function waitFor(
  name: string,
  what: string | RegExp | ((s: string) => boolean),
  timeoutMs = 30000,
): Promise<string> {
  const pred =
    typeof what === 'function' ? what : (s: string) => (typeof what === 'string' ? s.includes(what) : what.test(s));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = screen(name);
    if (pred(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; the screen shows:\n${last}`);
    await sleep(100);
  }
}

const header = (s: string): string => s.split('\n')[0]!;

describe('stepchain replay in a terminal (tmux)', () => {
  test('walks forward and back, jumps, searches, expands, and quits restoring the terminal', async () => {
    const s = start(['replay', 'agent-demo']);
    let sc = await waitFor(s, 'step 1 / 5');
    expect(header(sc)).toMatch(/^step 1 \/ 5 {2}seq 0 {2}head [0-9a-f]{12} {2}chain ✓ verified {2}agent-demo/);
    expect(sc).toContain('prompt      The test suite fails. Find out why.');
    expect(sc).toContain('first step (genesis');
    expect(sc).toMatch(/q quit/);
    expect(paneVar(s, 'alternate_on')).toBe('1');

    keys(s, 'n');
    sc = await waitFor(s, (x) => header(x).startsWith('step 2 / 5'));
    expect(sc).toContain('prompt      Read the implementation of add().');
    expect(sc).toContain('changed since step 0:');
    expect(sc).toContain('~ tool_call.name: "run" → "read_file"');
    expect(sc).toMatch(/blobs {7}[0-9a-f]{16}… input {2}12 B {2}user turn 1/);

    keys(s, 'Right');
    await waitFor(s, (x) => header(x).startsWith('step 3 / 5'));
    keys(s, 'p');
    await waitFor(s, (x) => header(x).startsWith('step 2 / 5'));
    keys(s, 'Left');
    await waitFor(s, (x) => header(x).startsWith('step 1 / 5'));

    keys(s, 'G');
    sc = await waitFor(s, (x) => header(x).startsWith('step 5 / 5'));
    expect(sc).toContain('Résumé ✓ 日本語');
    expect(sc).toMatch(/… \d+ more lines \(Enter expands\)/);
    expect(sc).not.toContain('line 12 of a long summary');
    keys(s, 'Enter');
    sc = await waitFor(s, 'line 12 of a long summary');
    expect(sc).not.toMatch(/more lines \(Enter expands\)/);
    keys(s, 'Enter');
    await waitFor(s, (x) => !x.includes('line 12 of a long summary'));

    keys(s, 'g');
    await waitFor(s, (x) => header(x).startsWith('step 1 / 5'));
    literal(s, '3');
    await waitFor(s, 'jump to seq (0..4): 3');
    keys(s, 'Enter');
    sc = await waitFor(s, (x) => header(x).startsWith('step 4 / 5'));
    expect(sc).toContain('prompt      Run the tests again.');
    literal(s, '42');
    keys(s, 'Enter');
    await waitFor(s, 'no step 42: seqs are 0..4');

    literal(s, '/edit_FILE');
    await waitFor(s, '/edit_FILE');
    keys(s, 'Enter');
    sc = await waitFor(s, (x) => header(x).startsWith('step 3 / 5'));
    expect(sc).toContain('"edit_FILE": match 1 of 1');
    literal(s, '/pytest');
    keys(s, 'Enter');
    await waitFor(s, (x) => header(x).startsWith('step 4 / 5'));
    literal(s, '/');
    keys(s, 'Enter');
    sc = await waitFor(s, (x) => header(x).startsWith('step 1 / 5'));
    expect(sc).toContain('match 1 of 2');

    keys(s, 'q');
    sc = await waitFor(s, 'EXIT:0');
    await waitFor(s, 'COOKED');
    expect(sc).not.toContain('step 1 / 5');
    expect(paneVar(s, 'alternate_on')).toBe('0');
    expect(paneVar(s, 'cursor_flag')).toBe('1');
  });

  test('a resize re-lays the screen out for the new width', async () => {
    const s = start(['replay', 'agent-demo'], 100, 30);
    await waitFor(s, 'step 1 / 5');
    tmux(['resize-window', '-t', s, '-x', '50', '-y', '16']);
    const sc = await waitFor(
      s,
      (x) =>
        x.split('\n')[1]!.startsWith('──') && x.split('\n')[1]!.trimEnd().length === 50 && x.includes('lines 1-13 of'),
    );
    expect(header(sc)).toMatch(/^step 1 \/ 5 {2}seq 0 {2}head [0-9a-f]{12} {2}chain ✓ ver…$/);
    keys(s, 'q');
    await waitFor(s, 'EXIT:0');
  });

  test('f forks the run from the current step and shows the new worktree', async () => {
    const s = start(['replay', 'agent-demo'], 200, 30);
    await waitFor(s, 'step 1 / 5');
    keys(s, 'n', 'n');
    await waitFor(s, (x) => header(x).startsWith('step 3 / 5'));
    keys(s, 'f');
    const sc = await waitFor(s, /forked at step 2 as (fork-\S+): worktree (\S+) \(branch (\S+)\)/);
    const m = /forked at step 2 as (fork-\S+): worktree (\S+) \(branch (\S+)\)/.exec(sc)!;
    expect(m[2]).toBe(path.join(root, '.sdd', 'worktrees', m[1]!));
    const forkJournal = path.join(m[2]!, '.sdd', 'runtime', 'journal', m[1]!, '000000.jsonl');
    expect(existsSync(forkJournal)).toBe(true);
    expect(readFileSync(forkJournal, 'utf8').trimEnd().split('\n')).toHaveLength(3);
    keys(s, 'q');
    await waitFor(s, 'EXIT:0');
  });

  test('a broken chain: exit 1 with the faults, nothing displayed', async () => {
    const dir = path.join(root, 'tampered');
    mkdirSync(dir, { recursive: true });
    const bad = path.join(dir, '000000.jsonl');
    writeFileSync(
      bad,
      readFileSync(path.join(root, '.sdd/runtime/journal/agent-demo/000000.jsonl'), 'utf8').replace(
        'Run the tests',
        'Skip the tests',
      ),
    );
    const s = start(['replay', bad], 200, 30);
    const sc = await waitFor(s, 'EXIT:1');
    expect(sc).toContain(`${bad}:4: step_hash_mismatch: field tamper`);
    expect(sc).not.toContain('step 1 / 5');
    expect(paneVar(s, 'alternate_on')).toBe('0');
  });

  test('a redacted receipt: verified, walked, <<redacted>> shown plainly; f says a receipt cannot be forked', async () => {
    const receipt = path.join(root, 'published.tar');
    publishReceipt(path.join(root, '.sdd/runtime/journal/agent-demo/000000.jsonl'), receipt, { optIn: true });
    const s = start(['replay', receipt], 120, 30);
    const sc = await waitFor(s, 'step 1 / 5');
    expect(header(sc)).toContain('agent-demo  receipt (redacted), unsigned');
    expect(sc).toContain('prompt      <<redacted>>');
    expect(sc).toContain('tool_result <<redacted>>');
    expect(sc).toContain('tool_call   {"args":{"cmd":"pytest -q"},"name":"run"}');
    keys(s, 'f');
    await waitFor(s, 'fork failed: a receipt cannot be forked');
    keys(s, 'q');
    await waitFor(s, 'EXIT:0');
  });

  test('SIGTERM and Ctrl-C give the terminal back', async () => {
    const s = start(['replay', 'agent-demo']);
    await waitFor(s, 'step 1 / 5');
    const shellPid = paneVar(s, 'pane_pid');
    process.kill(childOf(shellPid), 'SIGTERM');
    await waitFor(s, 'EXIT:143');
    await waitFor(s, 'COOKED');
    expect(paneVar(s, 'alternate_on')).toBe('0');

    const c = start(['replay', 'agent-demo']);
    await waitFor(c, 'step 1 / 5');
    keys(c, 'C-c');
    await waitFor(c, 'EXIT:0');
    await waitFor(c, 'COOKED');
    expect(paneVar(c, 'alternate_on')).toBe('0');
  });
});
