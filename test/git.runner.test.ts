import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { takeSnapshot } from '../src/git/snapshot';
import { initRepo } from './helpers/git';
import { gitCommandLine, namedPins, PINNED_CONFIG } from '../src/git/pins';
import { repoRoot } from './helpers/paths';

/**
 * One git runner (issue 20 §3): src/git/exec.ts is the only module that starts
 * a process, and every git it starts gets the pinned configuration. A new way
 * of starting git anywhere else in src/ fails here.
 */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(e)) out.push(p);
  }
  return out;
}

const RUNNER = path.join('src', 'git', 'exec.ts');
/**
 * The runner's process starter for the snapshot's `git add` (Node's process_wrap binding, or node:child_process when
 * the binding would warn or is refused: see the file). It is given its command line by the runner alone, and names
 * no program itself.
 */
const STARTER = path.join('src', 'git', 'quiet-process.ts');
/** Modules that start processes (or git) in some way, however the call is spelt (quotes, `?.(`, `['...']`). */
const SPAWNERS =
  /(?:from\s+|require\s*\(\s*|import\s*\(\s*|getBuiltinModule['"`\]]*\s*(?:\?\.)?\s*\(\s*)['"`](?:node:)?(?:child_process|simple-git|execa|cross-spawn|shelljs|zx|isomorphic-git|nodegit)['"`]/;

/**
 * A process API reached through `process` (process.binding, a global spawn), or a builtin module asked for by a name
 * that is not one plain string (computed, joined: which module it is cannot be read).
 */
const SNEAKY =
  /process\s*\??\.\s*binding\b|\)\s*\??\.\s*binding\b|\[\s*['"`]binding['"`]\s*\]|process\._linkedBinding|\bBun\.spawn|getBuiltinModule['"`\]]*\s*(?:\?\.)?\s*\((?!\s*(['"`])[\w:/]+\1\s*\))/;

/**
 * The two other modules that name a process API, each for a reason that is not git: `stepchain record` and
 * `fork --replay` start the user's own agent command (issue 24), and the OpenCode plugin's source is text that
 * OpenCode runs, never stepchain (issue 22). Neither may start git.
 */
const NOT_GIT: Record<string, string> = {
  [path.join('src', 'proxy', 'run.ts')]: "the user's agent command",
  [path.join('src', 'agents', 'opencode', 'plugin.ts')]: 'the text of the plugin OpenCode runs',
};

/** A module's text without its type-only imports (a type starts nothing). */
function valueImports(f: string): string {
  return readFileSync(path.join(repoRoot, f), 'utf8').replace(/^import type [^;]*;/gm, '');
}

test('no module of src/ but the runner imports a way to start a process or git', () => {
  const offenders = sources(path.join(repoRoot, 'src'))
    .map((f) => path.relative(repoRoot, f))
    .filter((f) => f !== RUNNER && f !== STARTER && NOT_GIT[f] === undefined && SPAWNERS.test(valueImports(f)));
  expect(offenders).toEqual([]);
  for (const f of Object.keys(NOT_GIT))
    expect(readFileSync(path.join(repoRoot, f), 'utf8')).not.toMatch(/['"`]git['"`]/);
  // Nor does anything reach a process API through `process` (process.binding, a global spawn), but the starter.
  const sneaky = sources(path.join(repoRoot, 'src'))
    .map((f) => path.relative(repoRoot, f))
    .filter((f) => f !== STARTER && SNEAKY.test(readFileSync(path.join(repoRoot, f), 'utf8')));
  expect(sneaky).toEqual([]);
  // The starter: imported by the runner alone, it names no program, and of Node's bindings process_wrap only.
  const starter = readFileSync(path.join(repoRoot, STARTER), 'utf8');
  const importers = sources(path.join(repoRoot, 'src'))
    .map((f) => path.relative(repoRoot, f))
    .filter((f) => /from\s+['"]\.{1,2}\/(?:git\/)?quiet-process['"]/.test(valueImports(f)));
  expect(importers).toEqual([RUNNER]);
  expect(starter).not.toMatch(/['"`]git['"`]/);
  expect([...starter.matchAll(/\.call\(process,\s*(['"`][^'"`]*['"`])/g)].map((m) => m[1])).toEqual(["'process_wrap'"]);
});

test('the guard sees process APIs however a module names them (a template string, an optional call, a name computed)', () => {
  for (const text of [
    "const b = process.binding('spawn_sync');",
    'const get = (process as unknown as { binding: Function }).binding;',
    'const get = process?.binding;',
    "const get = process['binding'];",
    "const cp = process.getBuiltinModule?.('node:child_process');",
    'const cp = process.getBuiltinModule(`child_process`);',
    "const cp = process['getBuiltinModule']('child_process');",
    'const cp = require(`node:child_process`);',
    "const cp = process.getBuiltinModule('node:child_' + 'process');",
    'const cp = process.getBuiltinModule(name);',
  ])
    expect([text, SPAWNERS.test(text) || SNEAKY.test(text)]).toEqual([text, true]);
  for (const text of [
    "process.getBuiltinModule('node:zlib').gunzipSync(x)",
    "process\n  .getBuiltinModule('node:http')",
  ])
    expect([text, SPAWNERS.test(text) || SNEAKY.test(text)]).toEqual([text, false]);
});

test('the runner starts processes in exactly three places (sync, piped, quiet), each with the pinned command line', () => {
  const text = readFileSync(path.join(repoRoot, RUNNER), 'utf8');
  const calls = [...text.matchAll(/\bspawn(?:Sync|Quiet)?\(([^,]+),\s*([^,]+),/g)].map((m) => [
    m[1]!.trim(),
    m[2]!.trim(),
  ]);
  expect(calls).toEqual([
    ["'git'", 'line.argv'],
    ["'git'", 'line.argv'],
    ["'git'", 'line.argv'],
  ]);
  expect(text).not.toMatch(/\bexec(?:File)?(?:Sync)?\(/);
});

test('the package no longer depends on simple-git', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  expect(Object.keys(pkg.dependencies ?? {})).not.toContain('simple-git');
});

describe('the command line', () => {
  const none = (): string => '';

  test('every pin comes after the caller\u2019s own -c (git keeps the last value), before the command', () => {
    const line = gitCommandLine(['-c', 'core.hooksPath=/tmp/x', 'update-ref', 'refs/x', 'HEAD'], none);
    const argv = line.argv;
    expect(argv.slice(0, 2)).toEqual(['-c', 'core.hooksPath=/tmp/x']);
    expect(argv.lastIndexOf('core.hooksPath=/dev/null')).toBeGreaterThan(1);
    expect(argv.slice(-3)).toEqual(['update-ref', 'refs/x', 'HEAD']);
    for (const p of PINNED_CONFIG) expect(argv).toContain(p);
  });

  test('commands that can run a named program get a pin for each filter driver and remote the config names', () => {
    let asked = 0;
    const cfg = (): string => {
      asked++;
      return 'filter.lfs.clean\ngit-lfs clean -- %f\0filter.a.b.smudge\nx\0remote.origin.url\nfile:///r\0filter.clean\nnot a driver\0';
    };
    const add = gitCommandLine(['add', '-A', '--', '.'], cfg);
    expect(asked).toBe(1);
    for (const p of [
      'filter.lfs.clean=',
      'filter.lfs.smudge=',
      'filter.lfs.process=',
      'filter.lfs.required=false',
      'filter.a.b.clean=',
      'remote.origin.uploadpack=git-upload-pack',
      'remote.origin.receivepack=git-receive-pack',
    ])
      expect(add.argv).toContain(p);
    gitCommandLine(['rev-parse', 'HEAD'], cfg);
    gitCommandLine(['commit-tree', 'abc'], cfg);
    expect(asked).toBe(1); // plumbing that runs no named program does not ask
  });

  test('a driver name -c cannot express is refused; unknown commands and program options are refused', () => {
    expect(() => namedPins('filter.a=b.clean\nx\0')).toThrow(/holds "="/);
    expect(() => gitCommandLine(['diff', 'HEAD'], none)).toThrow(/does not run `git diff`/);
    expect(() => gitCommandLine(['cat-file', '--textconv', 'HEAD:x'], none)).toThrow(/--textconv/);
    expect(() => gitCommandLine(['fetch', '--upload-pack=evil', 'origin'], none)).toThrow(/--upload-pack/);
    // After `--` an argument is a path, not an option.
    expect(gitCommandLine(['add', '--', '--textconv'], none).command).toBe('add');
  });
});

describe('a filter driver whose name is not UTF-8', () => {
  // Both readers of the configuration (git's output and ./config-read.ts) decode it as UTF-8: the name's bytes came
  // back as U+FFFD, the pin named another driver, and `git add` ran the repository's program.
  test('a snapshot refuses the repository, and the program never runs', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-pin-utf8-'));
    try {
      initRepo(dir, { 'a.txt': 'one\n' });
      const marker = path.join(dir, 'ran');
      const raw = Buffer.concat([
        readFileSync(path.join(dir, '.git', 'config')),
        Buffer.from('[filter "x'),
        Buffer.from([0xff]),
        Buffer.from(`"]\n\tclean = touch ${marker}; cat\n\tsmudge = cat\n`),
      ]);
      writeFileSync(path.join(dir, '.git', 'config'), raw);
      writeFileSync(
        path.join(dir, '.gitattributes'),
        Buffer.concat([Buffer.from('* filter=x'), Buffer.from([0xff]), Buffer.from('\n')]),
      );
      writeFileSync(path.join(dir, 'a.txt'), 'two\n');
      expect(() => takeSnapshot({ root: dir, agentId: 'claude', seq: 1, stepHash: 'a'.repeat(64) })).toThrow(
        /not UTF-8/,
      );
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
