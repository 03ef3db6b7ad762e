import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * Progress of a long verification (docs/journal.md, "Progress"): on a real
 * terminal (tmux), stderr shows "verifying …: N of M MB (P%)" rewritten in place
 * and cleared at the end; piped, nothing. The pane's raw output is logged with
 * pipe-pane; STEPCHAIN_PROGRESS_AFTER_MS=0 lets it show at once (no timing asserted).
 */
jest.setTimeout(180_000);
if (spawnSync('tmux', ['-V']).status !== 0)
  throw new Error('these tests need tmux (apt-get install -y tmux; .ci/run installs it)');

const root = tempDir();
const file = path.join(root, 'j', '000000.jsonl');
const socket = `stepchain-progress-${process.pid}`;
const tmux = (args: string[]): string => {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const q = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

beforeAll(() => {
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync(process.execPath, [
    '-r',
    path.join(repoRoot, 'test', 'helpers', 'swc-register.js'),
    path.join(repoRoot, 'bench', 'make-journal.ts'),
    file,
    '30000',
  ]);
});
afterAll(() => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
});

async function inTerminal(command: string): Promise<string> {
  const log = path.join(root, `pane-${Date.now()}.log`);
  const done = `${log}.done`;
  const go = `${log}.go`;
  // The command starts once the pane's output is logged (a fixed second's wait before was most of each test).
  const waitGo = `while [ ! -e ${q(go)} ]; do sleep 0.05; done`;
  tmux(['new-session', '-d', '-s', 'p', '-x', '120', '-y', '20', `${waitGo}; ${command}; touch ${q(done)}; sleep 600`]);
  tmux(['pipe-pane', '-o', '-t', 'p', `cat >> ${q(log)}`]);
  writeFileSync(go, '');
  for (let i = 0; i < 1200 && !existsSync(done); i++) await sleep(100);
  tmux(['kill-session', '-t', 'p']);
  return readFileSync(log, 'latin1');
}

it('shows progress on a terminal, and clears it', async () => {
  const out = await inTerminal(`STEPCHAIN_PROGRESS_AFTER_MS=0 ${q(process.execPath)} ${q(cliPath)} verify ${q(file)}`);
  expect(out).toMatch(/\r\x1b\[Kverifying .*000000\.jsonl: \d+ of 3\d MB \(\d+%\)/);
  expect(out).toContain('\r\x1b[K');
  expect(out).toContain('OK ');
});

it('says nothing of progress when stderr is not a terminal', async () => {
  const err = path.join(root, 'err.txt');
  const out = await inTerminal(
    `STEPCHAIN_PROGRESS_AFTER_MS=0 ${q(process.execPath)} ${q(cliPath)} verify ${q(file)} 2>${q(err)}`,
  );
  expect(out).toContain('OK ');
  expect(out).not.toContain('verifying');
  expect(readFileSync(err, 'utf8')).toBe('');
});
