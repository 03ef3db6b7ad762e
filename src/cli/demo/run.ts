import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoClaude } from './claude';
import { demoCodex } from './codex';
import { makeContext, type DemoSection } from './context';
import { demoFork } from './fork';
import { demoJournal } from './journal';
import { demoReceipts } from './receipts';
import { demoReport } from './report';
import { demoReplay } from './replay';
import { demoRuns } from './runs';
import { SAMPLE_FILES } from './sample';
import { gitSync } from '../../git/exec';
import type { CliRunner } from '../in-process';

/** The demo's sections, in order; each capability adds its own. */
export const DEMO_SECTIONS: DemoSection[] = [
  demoJournal,
  demoReceipts,
  demoFork,
  demoReplay,
  demoClaude,
  demoRuns,
  demoReport,
  demoCodex,
];

/** git through the one runner (src/git/exec.ts), so the demo's repository is the one it made, whatever GIT_* says. */
function git(root: string, args: string[]): void {
  gitSync(root, args);
}

/**
 * `npm start`: records a sample agent run into a temporary project (a git
 * repository), then walks every capability over it. Touches nothing outside
 * the temporary directory.
 */
export async function runDemo(write: (s: string) => void, env: NodeJS.ProcessEnv, cli: CliRunner): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'stepchain-demo-'));
  for (const [file, content] of Object.entries(SAMPLE_FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  // The demo's keys (below) are no project file: never in a step's snapshot.
  writeFileSync(path.join(root, '.gitignore'), '.sdd/\n.sdd-keys/\n');
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A']);
  git(root, ['-c', 'user.name=demo', '-c', 'user.email=demo@stepchain.invalid', 'commit', '-q', '-m', 'initial']);
  const demoEnv: NodeJS.ProcessEnv = {
    ...env,
    // Keys, and the checkpoints' tips kept beside the checkpoint key, in the temporary directory too: the demo
    // leaves nothing in the user's state directory (README, Quick start).
    STEPCHAIN_AUDIT_KEY_PATH: path.join(root, '.sdd-keys', 'audit.key'),
    STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, '.sdd-keys', 'checkpoint.key'),
    GIT_AUTHOR_NAME: 'stepchain demo',
    GIT_AUTHOR_EMAIL: 'demo@stepchain.invalid',
    GIT_COMMITTER_NAME: 'stepchain demo',
    GIT_COMMITTER_EMAIL: 'demo@stepchain.invalid',
  };
  write(`stepchain demo: a sample agent run in ${root}\n`);
  const ctx = makeContext(root, demoEnv, write, cli);
  for (const section of DEMO_SECTIONS) await section(ctx);
  write('\n== Walk it yourself ==\n');
  write(`cd ${root}\n`);
  // The demo's own keys (above): a walk with the user's keys would find checkpoints it cannot authenticate.
  write(
    `export STEPCHAIN_AUDIT_KEY_PATH=${demoEnv.STEPCHAIN_AUDIT_KEY_PATH} STEPCHAIN_CHECKPOINT_KEY_PATH=${demoEnv.STEPCHAIN_CHECKPOINT_KEY_PATH}   # the demo's keys\n`,
  );
  // The commands below say `stepchain`: the bundle this demo runs from, unless it is installed (npm link).
  const bundle =
    process.argv[1] !== undefined && /\.js$/.test(process.argv[1]) ? path.resolve(process.argv[1]) : 'dist/cli.js';
  write(`alias stepchain="node ${bundle}"     # or: npm link, once\n`);
  for (const line of ctx.epilogue) write(`${line}\n`);
  return root;
}
