import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent, auditDir, loadAuditKey } from '../src/audit';
import { canonicalOfRead, float } from '../src/canonical';
import { createFork } from '../src/forks';
import { computeStepHash, journalDir, journalFile } from '../src/journal';
import { exportReceipt, readTar } from '../src/receipt';
import { recordStep } from '../src/record';
import { recordCapability, recordMutation } from '../src/runs';
import { ZERO_HASH } from '../src/util/hash';
import { initRepo } from './helpers/git';
import { bashQuote, HOSTILE, HOSTILE_ALL } from './helpers/hostile';
import { cliPath } from './helpers/paths';
import { settledScreen } from './helpers/settled-screen';
import { rawTar } from './helpers/tar';
import { tempDir } from './helpers/tmp';

/**
 * The hostile corpus on a real terminal. Journals, a receipt, run journals, an
 * audit log and a fork carry OSC 52 (clipboard), OSC 2 (title), cursor moves
 * that repaint a verdict, C1 controls, bidi overrides and line separators in
 * every field a command prints: tool names, an input_hash, object keys, member
 * names, mutation kinds, adapter names, audit actors, fork labels, and a path
 * in an error message. Every command runs in a tmux pane; what tmux recorded is
 * what the operator would have seen: its paste buffers (OSC 52 lands there
 * with set-clipboard on), the pane title, and the screen text (capture-pane).
 * Positive controls show each of those detects the raw sequences. Run
 * `npm run build` first.
 */

jest.setTimeout(180000);

if (spawnSync('tmux', ['-V']).status !== 0)
  throw new Error('these tests need tmux (apt-get install -y tmux; .ci/run installs it)');

const socket = `stepchain-term-${process.pid}`;
const tmux = (args: string[]): string => {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
beforeAll(() => {
  // A server of our own (no user config), where an application's OSC 52 becomes a paste buffer: the clipboard
  // attack, recorded. Set before any pane prints.
  tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'keeper', 'sleep 3600']);
  tmux(['set-option', '-s', 'set-clipboard', 'on']);
});
afterAll(() => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
});

const tmp = tempDir('stepchain-term-');
const root = initRepo(path.join(tmp, 'project'), { 'README.md': 'r\n' });
const keyPath = path.join(tmp, 'keys', 'audit.key');
const ENV = { STEPCHAIN_AUDIT: 'off' };

/** A journal of hand-made rows (the chain holds): what a stranger's journal or receipt can carry. */
function writeHostileJournal(agent: string): void {
  const rows = [
    {
      input_hash: `${HOSTILE.osc52}${HOSTILE.repaint}`,
      model: HOSTILE.title,
      prompt: `${HOSTILE.bidi}\n${HOSTILE.lineSep}`,
      tool_call: { name: `${HOSTILE.osc52}${HOSTILE.c1}`, args: {} },
      tool_result: HOSTILE.cr,
    },
    {
      input_hash: ZERO_HASH,
      model: 'm',
      prompt: 'second',
      tool_call: { name: 'tool', args: { [`key${HOSTILE.repaint}`]: HOSTILE.osc52 } },
      tool_result: null,
    },
  ];
  let prev = ZERO_HASH;
  const lines = rows.map((r, seq) => {
    const hashed = { prev_hash: prev, ...r };
    const step_hash = computeStepHash(hashed, true);
    prev = step_hash;
    return `${canonicalOfRead({ ...hashed, blob_refs: [], seq, step_hash, ts: float(1_700_000_000.5 + seq) })}\n`;
  });
  mkdirSync(journalDir(root, agent), { recursive: true });
  writeFileSync(journalFile(root, agent), lines.join(''));
}

let forkWorktree = '';
beforeAll(async () => {
  writeHostileJournal('hostile');
  for (const p of ['first', 'second'])
    recordStep(journalDir(root, 'plain'), { prompt: p, model: 'm' }, { root, env: ENV, snapshot: p === 'first' });
  exportReceipt(journalFile(root, 'hostile'), path.join(root, 'hostile.tar'), {});
  const members = readTar(
    readFileSync(exportReceipt(journalFile(root, 'plain'), path.join(tmp, 'plain.tar'), {}).file),
  ).map((e) => ({ name: e.name, data: Buffer.from(e.data) }));
  writeFileSync(
    path.join(root, 'member.tar'),
    rawTar([...members, { name: `blobs/${HOSTILE.repaint}`, data: 'x' }, { name: HOSTILE.osc52, data: 'y' }]),
  );
  recordCapability(root, 'r1', `adapter${HOSTILE.title}`, 'observed', { env: ENV });
  recordMutation(root, 'r1', { agentId: 'a', kind: `compact${HOSTILE.osc52}${HOSTILE.repaint}` }, { env: ENV });
  recordCapability(root, 'r2', `adapter${HOSTILE.title}`, 'observed', { env: ENV });
  mkdirSync(path.dirname(keyPath), { recursive: true, mode: 0o700 });
  const key = loadAuditKey(keyPath, { create: true });
  appendAuditEvent(auditDir(root), key.bytes, `replay${HOSTILE.c1}`, {
    actor: HOSTILE_ALL,
    resource_type: HOSTILE.bidi,
    resource_id: HOSTILE.lineSep,
    details: { note: HOSTILE.osc52 },
  });
  const f = await createFork({ root, sessionId: 'plain', fromStep: 0, label: 'l', env: { ...process.env, ...ENV } });
  forkWorktree = f.fork_worktree;
  // The fork tree reads labels back from session files, which anyone with the checkout can edit.
  const session = JSON.parse(readFileSync(f.snapshot_path, 'utf8')) as { fork: { label: string } };
  session.fork.label = HOSTILE_ALL;
  writeFileSync(f.snapshot_path, JSON.stringify(session));
});

let sessions = 0;
/** A new detached session running `command` (a shell line); returns its name. */
function session(command: string, width = 160, height = 50): string {
  const name = `t${++sessions}`;
  tmux(['new-session', '-d', '-s', name, '-x', String(width), '-y', String(height), '-c', root, command]);
  return name;
}
const screen = (name: string): string => tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', name]);
const buffers = (): string => tmux(['list-buffers']);
const title = (name: string): string => tmux(['display-message', '-p', '-t', name, '#{pane_title}']).trim();
const keys = (name: string, ...k: string[]): void => void tmux(['send-keys', '-t', name, ...k]);

function waitFor(name: string, pred: (s: string) => boolean, what: string): Promise<string> {
  return settledScreen(() => screen(name), pred, what, 60000);
}

// What must never reach the screen as characters: bidi controls, separators, C1 (tmux would have acted on ESC).
const RAW = /[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('the hostile corpus on a real terminal (tmux)', () => {
  test('positive controls: raw sequences do reach the clipboard, the title and the screen', async () => {
    const raw = `${HOSTILE.osc52}${HOSTILE.title}${HOSTILE.bidi}`;
    const s = session(`printf '%s\\n' ${bashQuote(raw)}; echo CONTROL-DONE; sleep 600`);
    const sc = await waitFor(s, (x) => x.includes('CONTROL-DONE'), 'the control');
    expect(buffers()).toContain('PWNED');
    expect(title(s)).toBe('PWNED');
    expect(sc).toMatch(RAW);
    tmux(['kill-session', '-t', s]);
    while (buffers() !== '') tmux(['delete-buffer']);
  });

  test('every command that prints data shows the escapes, obeys none, and cannot repaint its verdict', async () => {
    const sc = (args: string): string => `${bashQuote(process.execPath)} ${bashQuote(cliPath)} ${args} 2>&1`;
    const steps: [string, string][] = [
      ['replay table', `${sc('replay hostile')} | cat`],
      ['replay receipt', `${sc('replay hostile.tar')} | cat`],
      ['show', sc('show hostile 0')],
      ['show changes', sc('show hostile.tar 1')],
      ['diff', sc('diff hostile plain')],
      ['receipt verify', sc('receipt verify member.tar')],
      ['run diff', sc('run diff r1 r2')],
      ['run verify', sc('run verify r1')],
      ['audit query', `STEPCHAIN_AUDIT_KEY_PATH=${bashQuote(keyPath)} ${sc('audit query')}`],
      ['forks', sc('forks')],
      ['error message', sc(`verify ${bashQuote(`./${HOSTILE.osc52}${HOSTILE.repaint}\n${HOSTILE.bidi}.jsonl`)}`)],
    ];
    const script = [
      'export STEPCHAIN_AUDIT=off',
      ...steps.flatMap(([name, cmd]) => [`echo '=== ${name}'`, cmd]),
      "echo '=== DONE'",
      'sleep 600',
    ].join('\n');
    const file = path.join(tmp, 'hostile.sh');
    writeFileSync(file, script);
    const before = buffers();
    const s = session(`bash ${bashQuote(file)}`, 220, 60);
    const initialTitle = title(s);
    const sc0 = await waitFor(s, (x) => x.includes('=== DONE'), 'the commands');
    expect(before).toBe('');
    // Nothing reached the clipboard, the title is the shell's, nothing was reordered or cleared.
    expect(buffers()).toBe('');
    expect(title(s)).toBe(initialTitle);
    expect(title(s)).not.toBe('PWNED');
    expect(sc0).not.toMatch(RAW);
    // Every section ran and printed (the clear-screen C1 did not wipe earlier ones).
    for (const [name] of steps) expect(sc0).toContain(`=== ${name}`);
    const section = (name: string): string => {
      const i = sc0.indexOf(`=== ${name}\n`);
      return sc0.slice(i, sc0.indexOf('\n=== ', i + 1));
    };
    // The escapes are shown, in each place data reaches the terminal.
    expect(section('replay table')).toContain('\\x1b]52;c;UFdOR'); // a tool name (cut to its column)
    expect(section('replay receipt')).toContain('receipt');
    expect(section('show')).toContain('input_hash  \\x1b]52;c;UFdORUQ=\\x07\\x1b[2K\\x1b[1A\\x1b[2KOK hostile.tar');
    expect(section('show')).toContain('invoice-\\u202egpj.exe \\u2066isolated\\u2069');
    expect(section('show changes')).toContain('tool_call.args.key\\x1b[2K\\x1b[1A\\x1b[2KOK hostile.tar'); // an object key
    expect(section('diff')).toMatch(/diverged at step 0/);
    // The verdict stands: FAIL, and no line painted over it.
    const rv = section('receipt verify');
    expect(rv).toMatch(/^FAIL member\.tar: 2 problems$/m);
    expect(rv).not.toMatch(/^OK hostile\.tar: signature OK/m);
    expect(rv).toContain('member.tar:"blobs/\\u001b[2K\\u001b[1A'); // a member name, quoted
    expect(section('run diff')).toContain('compact\\x1b]52;c;UFdORUQ=\\x07'); // a mutation kind
    expect(section('run verify')).toContain('adapter\\x1b]2;PWNED\\x07=observed'); // an adapter name
    expect(section('audit query')).toContain('replay\\x9b2J'); // event type, actor, resource
    expect(section('audit query')).toContain('one\\u2028two');
    expect(section('forks')).toContain('\\u001b]52;c;UFdORUQ=\\u0007'); // a label, quoted
    expect(section('forks')).toContain('\\x9b2J');
    expect(section('forks')).toContain(`worktree ${forkWorktree}`);
    const err = section('error message');
    expect(err).toMatch(/^stepchain: .*\\x1b\]52;c;UFdORUQ=\\x07.*\\n.*\\u202e/m);
    // One line: the newline in the path did not start a line of its own.
    expect(err.trim().split('\n')).toHaveLength(2);
    tmux(['kill-session', '-t', s]);
  });

  test('the interactive replay paints only its own sequences', async () => {
    const s = session(
      `${bashQuote(process.execPath)} ${bashQuote(cliPath)} replay hostile; echo "EXIT:$?"; sleep 600`,
      140,
      40,
    );
    await sleep(0);
    const initialTitle = title(s);
    const capture = (): string => tmux(['capture-pane', '-p', '-t', s]);
    let sc = '';
    const until = async (pred: (x: string) => boolean, what: string): Promise<void> => {
      sc = await settledScreen(capture, pred, what, 60000);
    };
    await until((x) => x.startsWith('step 1 / 2'), 'step 1');
    expect(sc).toContain('\\x1b]52;c;UFdORUQ=\\x07\\x1b[2K\\x1b[1A');
    expect(sc).toContain('invoice-\\u202egpj.exe');
    expect(sc).not.toMatch(RAW);
    keys(s, 'n');
    await until((x) => x.startsWith('step 2 / 2'), 'step 2');
    expect(sc).toContain('tool_call.args.key\\x1b[2K\\x1b[1A');
    expect(sc.split('\n')[0]).toMatch(/^step 2 \/ 2 {2}seq 1/); // the header was not repainted
    expect(buffers()).toBe('');
    expect(title(s)).toBe(initialTitle);
    keys(s, 'q');
    await until((x) => x.includes('EXIT:0'), 'exit');
  });
});
