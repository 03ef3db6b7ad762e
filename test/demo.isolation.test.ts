/**
 * README, Quick start: `npm start` "touches nothing outside the temporary directory". The demo runs as a user runs
 * it (the built CLI, a whole process) with HOME, the XDG state directory and the temporary directory pointed at
 * empty directories of the test's, then the commands it prints to walk the run are run as pasted: nothing may appear
 * in HOME or the state directory (no checkpoint key, no rollback tips, no audit key), and the walk stays clean.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { cli, expectNoStack } from './helpers/cli';
import { git } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-demo-iso-');

/** Every path under `dir`, relative to it. */
function tree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).map((e) =>
    path.relative(dir, path.join(e.parentPath, e.name)),
  );
}

test('npm start writes nothing outside its temporary directory, and its walk-through runs as printed', () => {
  const home = freshDir(tmp, 'home');
  const state = freshDir(tmp, 'state');
  const temp = freshDir(tmp, 'tmp');
  // The code cache is the CLI's own, kept for every command (README, Environment); off, it is no part of the demo.
  const env = { HOME: home, XDG_STATE_HOME: state, TMPDIR: temp, STEPCHAIN_CODE_CACHE: 'off', STEPCHAIN_AUDIT: 'on' };
  const r = cli(['demo'], { env });
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect(tree(home)).toEqual([]);
  expect(tree(state)).toEqual([]);
  const demoDirs = readdirSync(temp);
  expect(demoDirs).toEqual([expect.stringMatching(/^stepchain-demo-/)]);
  const root = path.join(temp, demoDirs[0]!);
  // Its keys live there, but are no project file: no snapshot of a step holds them.
  expect(
    git(root, ['log', '--all', '--name-only', '--format='])
      .split('\n')
      .filter((f) => f.includes('.sdd-keys')),
  ).toEqual([]);

  // The walk-through, pasted from where it says `cd <root>`: every command runs (no usage or input error), and
  // none warns that a checkpoint was made with another key or writes outside the demo's directory either.
  const tail = r.stdout.slice(r.stdout.lastIndexOf('== Walk it yourself =='));
  const lines = tail.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
  const exported: NodeJS.ProcessEnv = {};
  for (const l of lines.filter((x) => x.startsWith('export ')))
    for (const kv of l.split(/\s+/).slice(1)) exported[kv.split('=')[0]!] = kv.slice(kv.indexOf('=') + 1);
  const walk = lines.filter((l) => /^(?:[A-Z_]+=\S+ )*stepchain /.test(l));
  expect(walk.length).toBeGreaterThan(8);
  for (const line of walk) {
    const words = line.split(/\s+/);
    const vars: NodeJS.ProcessEnv = { ...exported };
    while (/^[A-Z_]+=/.test(words[0]!)) {
      const [k, ...v] = words.shift()!.split('=');
      vars[k!] = v.join('=');
    }
    const w = cli(words.slice(1), { cwd: root, env: { ...env, ...vars } });
    expectNoStack(w);
    expect([line, w.code === 2 ? w.stderr : '', w.stderr.match(/.*warning.*/g) ?? []]).toEqual([line, '', []]);
  }
  expect(tree(home)).toEqual([]);
  expect(tree(state)).toEqual([]);
});
