import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { publishReceipt } from '../src/receipt';
import { cliPath } from './helpers/paths';
import { record, replayProject } from './helpers/replay-fixture';
import { settledScreen } from './helpers/settled-screen';

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
const WORDS =
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon';
const ROCKET = `🚀✅ deploy ${'and check the rollout '.repeat(12)}`.trimEnd();
record(root, 'wide-agent', [
  { model: 'm', prompt: ROCKET },
  { model: 'm', prompt: `${WORDS} ${WORDS} ${WORDS}` },
]);
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

/** Waits for the screen to show `what`, settled (./helpers/settled-screen.ts); returns it. */
function waitFor(name: string, what: string | RegExp | ((s: string) => boolean), timeoutMs = 30000): Promise<string> {
  const pred =
    typeof what === 'function' ? what : (s: string) => (typeof what === 'string' ? s.includes(what) : what.test(s));
  return settledScreen(() => screen(name), pred, String(what), timeoutMs);
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
    // Narrow: parts are dropped by priority, never the chain status.
    expect(header(sc)).toMatch(/^step 1 \/ 5 {2}head [0-9a-f]{12} {2}chain ✓ verified/);
    keys(s, 'q');
    await waitFor(s, 'EXIT:0');
  });

  for (const width of [60, 160]) {
    test(`f asks first, then shows the fork whole (worktree and branch), at ${width} columns`, async () => {
      const s = start(['replay', 'agent-demo'], width, 30);
      await waitFor(s, 'step 1 / 5');
      keys(s, 'n', 'n');
      await waitFor(s, (x) => header(x).startsWith('step 3 / 5'));
      keys(s, 'f');
      // The question fits the width with its answer keys: never cut before "y/N".
      await waitFor(s, /fork the run at step 2 into a new git worktree(?: and branch)?\? y\/N/);
      keys(s, 'n');
      await waitFor(s, 'fork cancelled: nothing was created');
      expect(existsSync(path.join(root, '.sdd', 'worktrees'))).toBe(width === 160); // the 60-column run goes first
      keys(s, 'f');
      await waitFor(s, 'fork the run at step 2');
      keys(s, 'y');
      const sc = await waitFor(s, /continue it: stepchain append/);
      const flat = sc
        .split('\n')
        .map((l) => l.trimEnd())
        .join('');
      const id = /forked at step 2 as (fork-[0-9]{8}-[0-9]{6}-[0-9a-f]{6})/.exec(sc)![1]!;
      const wt = path.join(root, '.sdd', 'worktrees', id);
      // Shown whole, wrapped over as many lines as it takes.
      expect(flat.replace(/\s+/g, '')).toContain(`worktree${wt}`);
      expect(flat.replace(/ +/g, ' ')).toContain(`branch fork/main/${id}`);
      expect(flat.replace(/\s+/g, '')).toContain(`--root${wt}`);
      const forkJournal = path.join(wt, '.sdd', 'runtime', 'journal', id, '000000.jsonl');
      expect(readFileSync(forkJournal, 'utf8').trimEnd().split('\n')).toHaveLength(3);
      keys(s, 'x'); // any key returns to the step
      await waitFor(s, (x) => x.includes('prompt      Fix the bug in add().'));
      keys(s, 'q');
      await waitFor(s, 'EXIT:0');
    });

    test(`? lists every key; the header keeps the chain status; emoji take two columns; words wrap whole, at ${width} columns`, async () => {
      const s = start(['replay', 'wide-agent'], width, 24);
      let sc = await waitFor(s, 'step 1 / 2');
      expect(header(sc)).toContain('chain ✓ verified');
      expect(header(sc)).toMatch(/^step 1 \/ 2 .*head [0-9a-f]{12}/);
      if (width === 160) expect(header(sc)).toMatch(/seq 0 {2}head [0-9a-f]{12} {2}chain ✓ verified {2}wide-agent/);
      // The prompt rows, rejoined with single spaces, give the prompt back: nothing cut mid-word, nothing lost
      // past the edge (an emoji counted as one column would push its row's last characters off the screen).
      const promptRows = (screenText: string): string[] => {
        const rows = screenText.split('\n');
        const i = rows.findIndex((l) => l.startsWith('prompt      '));
        const out = [rows[i]!.slice(12).trimEnd()];
        for (let j = i + 1; rows[j]!.startsWith('            ') && !rows[j]!.includes('more line'); j++)
          out.push(rows[j]!.slice(12).trimEnd());
        return out;
      };
      const cols = (t: string): number => [...t].reduce((w, ch) => w + (/[🚀✅]/u.test(ch) ? 2 : 1), 0);
      const rocket = promptRows(sc);
      expect(rocket[0]!.startsWith('🚀✅ deploy and')).toBe(true);
      expect(ROCKET.startsWith(rocket.join(' '))).toBe(true);
      for (const r of rocket) expect(cols(r)).toBeLessThanOrEqual(width - 12);
      // An emoji row is filled as far as whole words go: the next word would not have fitted.
      const next = ROCKET.slice(rocket[0]!.length + 1).split(' ')[0]!;
      expect(cols(`${rocket[0]} ${next}`)).toBeGreaterThan(width - 12);
      keys(s, 'n');
      await waitFor(s, (x) => header(x).startsWith('step 2 / 2'));
      keys(s, 'Enter');
      sc = await waitFor(s, 'expanded: every field in full');
      const wrapped = promptRows(sc);
      expect(wrapped.length).toBeGreaterThan(1);
      expect(wrapped.join(' ')).toBe(`${WORDS} ${WORDS} ${WORDS}`);
      keys(s, '?');
      sc = await waitFor(s, 'Keys (any key returns to the step)');
      for (const k of [
        'n  →  l',
        'p  ←  h',
        'g  Home',
        'G  End',
        'digits ⏎',
        '/text ⏎',
        'N ',
        '⏎ ',
        'PgUp PgDn Space',
        'f ',
        '? ',
        'q  Ctrl-C',
      ])
        expect(sc.split('\n').some((l) => l.trimStart().startsWith(k))).toBe(true);
      keys(s, 'Escape');
      await waitFor(s, (x) => !x.includes('Keys (any key returns'));
      keys(s, 'q');
      await waitFor(s, 'EXIT:0');
    });
  }

  test('--limit is honoured on a terminal', async () => {
    const s = start(['replay', 'agent-demo', '--limit', '2'], 100, 30);
    const sc = await waitFor(s, 'step 1 / 2');
    expect(header(sc)).toMatch(/^step 1 \/ 2 \(of 5, --limit\)/);
    keys(s, 'G');
    await waitFor(s, (x) => header(x).startsWith('step 2 / 2'));
    keys(s, 'n');
    await waitFor(s, 'this is the last step walked (--limit 2 of 5)');
    literal(s, '4');
    keys(s, 'Enter');
    await waitFor(s, 'no step 4: seqs are 0..1 (--limit 2)');
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
    expect(header(sc)).toContain('agent-demo  published receipt (redacted)  unsigned');
    expect(sc).not.toContain('f fork'); // not offered on a receipt
    expect(sc).toContain('prompt      <<redacted>>');
    expect(sc).toContain('tool_result <<redacted>>');
    expect(sc).toContain('tool_call   {"args":{"cmd":"pytest -q"},"name":"run"}');
    keys(s, 'f');
    await waitFor(s, 'a receipt cannot be forked: fork the journal it came from');
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
