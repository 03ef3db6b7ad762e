import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readConfigInProcess } from '../src/git/config-read';
import { LOOSE_CONFIG_PATTERN } from '../src/git/loose';
import { NAMED_SECTIONS_PATTERN } from '../src/git/pins';
import { cli } from './helpers/cli';
import { git, initRepo, writeFiles } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * The snapshot's read of the configuration naming programs, without git (src/git/config-read.ts), held to git's
 * own answer: for every shape it reads, byte for byte what `git config --null --get-regexp` prints; for every shape
 * it does not read (includes, links, a git of its own on PATH, bytes git reads its own way), no answer, so git is
 * asked. And a repository whose configuration names a filter program in any shape git reads never has it run.
 */
const tmp = tempDir('stepchain-config-read-');
const READ = `${NAMED_SECTIONS_PATTERN}|${LOOSE_CONFIG_PATTERN}`;
/** Every key: the whole parse compared, not only what the snapshot asks. */
const ALL = '.';

interface Setup {
  repo: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** A repository and a home of its own; the environment git and the reader get (the distribution's git first). */
function setup(extraEnv: NodeJS.ProcessEnv = {}): Setup {
  const base = freshDir(tmp, 'c');
  const home = path.join(base, 'home');
  mkdirSync(home, { recursive: true });
  const repo = initRepo(path.join(base, 'repo'), { 'a.txt': 'a\n' });
  return { repo, home, env: { PATH: '/usr/bin:/bin', HOME: home, ...extraEnv } };
}

const places = (s: Setup) => ({ gitDir: path.join(s.repo, '.git'), commonDir: path.join(s.repo, '.git') });

/** What git prints (`''` when no key matches: exit 1), or its exit status and message when it refuses. */
function gitsAnswer(s: Setup, pattern: string): string {
  const r = spawnSync('git', ['config', '--null', '--get-regexp', pattern], { cwd: s.repo, env: s.env });
  if (r.status === 0) return r.stdout.toString('utf8');
  if (r.status === 1) return '';
  return `git exit ${r.status}: ${r.stderr.toString('utf8')}`;
}

const appendRepoConfig = (s: Setup, text: string): void =>
  writeFileSync(path.join(s.repo, '.git', 'config'), readFileSync(path.join(s.repo, '.git', 'config')) + text);

/** Shapes git reads, each in the repository's config (after git's own lines) and in the user's. */
const READ_SHAPES: [string, string][] = [
  [
    'filters and remotes',
    '[filter "ev"]\n\tclean = /x/evil clean %f\n\tsmudge = /x/evil smudge\n[remote "origin"]\n\turl = /srv/r.git\n\tuploadpack = /x/up\n',
  ],
  [
    'the identity and the repository format',
    '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[core]\n\tsharedRepository = group\n\tlogAllRefUpdates = always\n[i18n]\n\tcommitEncoding = ISO-8859-1\n[extensions]\n\tpartialClone = origin\n',
  ],
  ['a section header and a key on one line', '[filter "one"] clean = /x/one\n[user]name=Inline\n'],
  ['the old dotted subsection (lower-cased)', '[filter.Dotted]\n\tclean = /x/dotted\n[Remote.Up]\n\turl = u\n'],
  [
    'upper-case sections and keys, a subsection kept as written',
    '[FILTER "MiXeD"]\n\tCLEAN = /x/m\n[User]\n\tEmail = E@X\n',
  ],
  [
    'a subsection with spaces, dots and symbols',
    '[filter "a b.c=d;e#f[g]"]\n\tclean = x\n[remote   "tab\tsep"]\n\turl = t\n',
  ],
  [
    'quotes, escapes and comments in values',
    '[user]\n\tname = "  Quoted; #not a comment  " ; a comment\n\temail = a\\"b\\\\c\\td\\ne\\bf # trailing\n',
  ],
  [
    'inner whitespace becomes spaces, trailing whitespace goes',
    '[user]\n\tname =   spaced \t\t out   \n\temail = tab\there\n',
  ],
  ['a value continued on the next lines', '[filter "cont"]\n\tclean = /x/first \\\n  second \\\n\tthird\n'],
  [
    'keys with no value and empty values',
    '[filter "flag"]\n\trequired\n\tclean =\n\tsmudge = ""\n[user]\n\tuseConfigOnly\n',
  ],
  [
    'comments everywhere and no newline at the end',
    '# top\n; also\n[filter "c"] ; after a header\n  # indented\n\tclean = c # end\n[user]\n\tname = last',
  ],
  ['non-ASCII values and subsections', '[user]\n\tname = José Müller 日本\n[filter "ünï"]\n\tclean = ü\n'],
  ['keys with digits and dashes', '[remote "r-1"]\n\tx-y-2 = 1\n\tpushurl = p\n'],
];

/** Shapes the reader leaves to git (it answers nothing), whatever git makes of them. */
const LEFT_TO_GIT: [string, (s: Setup) => void][] = [
  ['an include', (s) => appendRepoConfig(s, '[include]\n\tpath = other\n')],
  ['a conditional include', (s) => appendRepoConfig(s, '[includeIf "gitdir:/"]\n\tpath = other\n')],
  ['per-worktree configuration', (s) => appendRepoConfig(s, '[extensions]\n\tworktreeConfig = true\n')],
  ['a carriage return (CRLF lines)', (s) => appendRepoConfig(s, '[filter "crlf"]\r\n\tclean = x\r\n')],
  ['a byte-order mark', (s) => writeFileSync(path.join(s.home, '.gitconfig'), '\uFEFF[user]\n\tname = bom\n')],
  ['a NUL', (s) => appendRepoConfig(s, '[user]\n\tname = a\0b\n')],
  ['an escape in a subsection', (s) => appendRepoConfig(s, '[filter "a\\"b"]\n\tclean = x\n')],
  ['an unknown escape (git refuses it)', (s) => appendRepoConfig(s, '[user]\n\tname = a\\qb\n')],
  ['an unterminated quote (git refuses it)', (s) => appendRepoConfig(s, '[user]\n\tname = "open\n')],
  ['a key before any section (git refuses it)', (s) => writeFileSync(path.join(s.home, '.gitconfig'), 'name = x\n')],
  ['a comment after a key with no value (git refuses it)', (s) => appendRepoConfig(s, '[user]\n\tflag ; c\n')],
  ['a space before the closing bracket (git refuses it)', (s) => appendRepoConfig(s, '[filter ]\n\tclean = x\n')],
  [
    "the repository's config is a link",
    (s) => {
      const real = path.join(s.home, 'real-config');
      writeFileSync(real, readFileSync(path.join(s.repo, '.git', 'config')));
      rmSync(path.join(s.repo, '.git', 'config'));
      symlinkSync(real, path.join(s.repo, '.git', 'config'));
    },
  ],
  [
    "the user's config is a link",
    (s) => {
      writeFileSync(path.join(s.home, 'dotfile'), '[filter "linked"]\n\tclean = x\n');
      symlinkSync(path.join(s.home, 'dotfile'), path.join(s.home, '.gitconfig'));
    },
  ],
  ["the user's config is a directory", (s) => mkdirSync(path.join(s.home, '.gitconfig'))],
];

describe('the in-process read of git configuration', () => {
  test.each(READ_SHAPES)("%s: in the repository's config, git's answer", (_what, text) => {
    const s = setup();
    appendRepoConfig(s, text);
    for (const pattern of [READ, ALL]) {
      const mine = readConfigInProcess(places(s), s.env, pattern);
      expect(mine).toBeDefined();
      expect(mine).toBe(gitsAnswer(s, pattern));
    }
  });

  test.each(READ_SHAPES)("%s: in the user's config (both user files, in git's order), git's answer", (_what, text) => {
    const s = setup();
    writeFileSync(path.join(s.home, '.gitconfig'), text);
    mkdirSync(path.join(s.home, '.config', 'git'), { recursive: true });
    writeFileSync(path.join(s.home, '.config', 'git', 'config'), '[filter "xdg"]\n\tclean = x\n[user]\n\tname = X\n');
    appendRepoConfig(s, '[user]\n\tname = Repo\n');
    for (const pattern of [READ, ALL]) {
      const mine = readConfigInProcess(places(s), s.env, pattern);
      expect(mine).toBeDefined();
      expect(mine).toBe(gitsAnswer(s, pattern));
    }
  });

  test('XDG_CONFIG_HOME names the other user file', () => {
    const xdg = path.join(tmp, 'xdg');
    mkdirSync(path.join(xdg, 'git'), { recursive: true });
    writeFileSync(path.join(xdg, 'git', 'config'), '[filter "from-xdg"]\n\tclean = x\n');
    const s = setup({ XDG_CONFIG_HOME: xdg });
    const mine = readConfigInProcess(places(s), s.env, READ);
    expect(mine).toContain('filter.from-xdg.clean');
    expect(mine).toBe(gitsAnswer(s, READ));
  });

  test.each(LEFT_TO_GIT)('%s: no answer (git is asked)', (_what, make) => {
    const s = setup();
    make(s);
    expect(readConfigInProcess(places(s), s.env, READ)).toBeUndefined();
  });

  test.each([
    ['GIT_CONFIG_NOSYSTEM set', { GIT_CONFIG_NOSYSTEM: '1' }],
    ['a relative HOME', { HOME: 'home' }],
    ['a relative XDG_CONFIG_HOME', { XDG_CONFIG_HOME: 'xdg' }],
    ['no PATH', { PATH: undefined }],
    ['a relative directory on PATH before git', { PATH: 'bin:/usr/bin' }],
  ])('%s: no answer (git is asked)', (_what, env) => {
    const s = setup();
    const e: NodeJS.ProcessEnv = { ...s.env, ...env };
    if ('PATH' in env && env.PATH === undefined) delete e.PATH;
    expect(readConfigInProcess(places(s), e, READ)).toBeUndefined();
  });

  test("another git first on PATH (whose system file is its own): no answer; the distribution's: an answer", () => {
    const s = setup();
    const bin = path.join(tmp, 'other-git');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'git'), '#!/bin/sh\nexec /usr/bin/git "$@"\n');
    chmodSync(path.join(bin, 'git'), 0o755);
    expect(readConfigInProcess(places(s), { ...s.env, PATH: `${bin}:/usr/bin` }, READ)).toBeUndefined();
    // Not executable: execvp passes it by, and so does the reader.
    chmodSync(path.join(bin, 'git'), 0o644);
    expect(readConfigInProcess(places(s), { ...s.env, PATH: `${bin}:/usr/bin` }, READ)).toBe(gitsAnswer(s, READ));
  });

  test('a repository with no config file of its own: no answer', () => {
    const s = setup();
    rmSync(path.join(s.repo, '.git', 'config'));
    expect(readConfigInProcess(places(s), s.env, READ)).toBeUndefined();
  });
});

describe('a filter program named in any shape git reads never runs', () => {
  const marker = path.join(tmp, 'MARKER');
  const evil = path.join(tmp, 'evil');
  writeFileSync(evil, `#!/bin/sh\necho "evil $*" >> '${marker}'\ncat\n`);
  chmodSync(evil, 0o755);

  test.each([
    ['quoted subsection', `[filter "ev"]\n\tclean = ${evil} clean\n\trequired = true\n`],
    ['dotted subsection', `[filter.ev]\n\tclean = ${evil} clean\n`],
    ['header and key on one line, upper case', `[FILTER "ev"] CLEAN = ${evil} clean\n`],
    ['continued value', `[filter "ev"]\n\tclean = ${evil} \\\n clean\n`],
    ['quoted value with a comment', `[filter "ev"]\n\tclean = "${evil} clean" ; runs\n`],
  ])('%s: the step is recorded, the snapshot holds the bytes, no marker', (_what, text) => {
    rmSync(marker, { force: true });
    const s = setup();
    writeFiles(s.repo, { '.gitattributes': '*.txt filter=ev\n' });
    git(s.repo, ['add', '-A']);
    git(s.repo, ['commit', '-q', '-m', 'attributes']);
    appendRepoConfig(s, text);
    // The test has teeth: git run plainly does run the program.
    writeFiles(s.repo, { 'a.txt': 'changed\n' });
    execFileSync('git', ['add', '-A', '--dry-run'], { cwd: s.repo, env: s.env });
    spawnSync('git', ['status', '--porcelain'], { cwd: s.repo, env: s.env });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    // The reader answers for this configuration: the snapshot below reads it in-process.
    expect(readConfigInProcess(places(s), s.env, READ)).toMatch(/(^|\0)filter\.ev\.clean\n/);
    writeFiles(s.repo, { 'a.txt': 'changed again\n' });
    const r = cli(['append', 'ag', '--prompt', 'edit'], { cwd: s.repo, env: s.env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/snapshot failed/);
    expect(existsSync(marker)).toBe(false);
    const ref = git(s.repo, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots']);
    expect(git(s.repo, ['cat-file', 'blob', `${ref.split('\n')[0]}:a.txt`])).toBe('changed again');
  });
});
