import { IntegrityError } from '../errors';

/**
 * What stepchain tells git on every command line so that git never runs a
 * program that a repository's configuration (`.git/config`, a worktree's
 * `config.worktree`, an include), the user's configuration or an inherited
 * variable names. A repository is not trusted to be harmless: an agent can
 * write the configuration of the repository it works in, or swap a worktree's
 * `.git` for a repository of its own (./worktree-link.ts refuses that), and
 * stepchain runs git as the user, outside the agent's sandbox. Everything is
 * pinned with `-c`, which git reads after every configuration file (and hands
 * on to the git processes it starts itself, such as the `status` inside
 * `worktree remove` or a partial clone's lazy fetch).
 *
 * Programs switched off, by the key that would name them:
 * - fsmonitor (`core.fsmonitor`: a hook program, or the builtin daemon);
 * - hooks, every one including reference-transaction (`core.hooksPath` points
 *   at /dev/null, under which no hook file can exist);
 * - the pager and editors (`core.pager`, `core.editor`, `sequence.editor`);
 * - credential helpers (an empty `credential.helper` empties the list, URL-
 *   specific helpers included) and askpass programs (`core.askPass`);
 * - ssh commands (`core.sshCommand` is plain `ssh`; GIT_SSH and
 *   GIT_SSH_COMMAND are dropped from the environment, see ./exec.ts);
 * - remote helpers and external transports (`ext::`, `remote.<name>.vcs`,
 *   `git://` with its `core.gitProxy`): only the file, http(s) and ssh
 *   protocols are allowed (a repository's `protocol.<name>.allow` outranks
 *   `protocol.allow`, so ./exec.ts also sets GIT_ALLOW_PROTOCOL, which
 *   overrides every protocol setting);
 * - the alternate-refs command a fetch would run (`core.alternateRefsCommand`
 *   is a shell no-op: no alternate refs are advertised);
 * - automatic gc/maintenance after a fetch or commit, commit signing, and
 *   submodule recursion (a submodule's own configuration is another
 *   repository's);
 * - named programs, whose names only the configuration knows: filter drivers
 *   (`filter.<name>.clean`/`smudge`/`process`, run by add, status and checkout
 *   for paths whose attributes name them; `required` is lifted so an unset
 *   filter is not an error) and a remote's `uploadpack`/`receivepack`. Their
 *   names are read (`git config --get-regexp`, which runs nothing) right before
 *   each command that can run them, and each is pinned empty. `-c` cannot name
 *   a subsection holding "=": such a configuration is refused. git keeps the
 *   first upload-pack configured (not the last), so `fetch` also gets
 *   `--upload-pack=git-upload-pack`, and a partial clone's promisor remote
 *   that names one is refused (git would run it for its own lazy fetches).
 * Textconv, external diff and merge drivers run only in diff and merge
 * commands, and stepchain runs none (the table below refuses them).
 *
 * The stat settings (`core.trustctime`, `core.checkStat`, `core.ignoreStat`)
 * are pinned to git's defaults so a snapshot never takes a changed file for an
 * unchanged one because a repository says its ctimes are not to be trusted.
 */
export const PINNED_CONFIG: readonly string[] = [
  'core.fsmonitor=',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'core.askPass=',
  'credential.helper=',
  'core.sshCommand=ssh',
  'core.alternateRefsCommand=: no alternate refs',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'protocol.http.allow=always',
  'protocol.https.allow=always',
  'protocol.ssh.allow=always',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'status.submoduleSummary=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'commit.gpgSign=false',
  'core.trustctime=true',
  'core.checkStat=default',
  'core.ignoreStat=false',
];

/**
 * Every git command stepchain runs, and whether it can run a named program
 * (a filter on work-tree content: any command that reads or writes the index
 * may compare a racily clean entry's content; or a fetch, a partial clone's
 * lazy one included, with a remote's upload-pack): those get the named pins. A command
 * not listed is refused: adding one means deciding this for it.
 */
const COMMANDS: Readonly<Record<string, 'plain' | 'named'>> = {
  'rev-parse': 'plain',
  'symbolic-ref': 'plain',
  'show-ref': 'plain',
  'for-each-ref': 'plain',
  'update-ref': 'plain',
  'commit-tree': 'plain',
  config: 'plain',
  init: 'plain',
  'ls-files': 'plain',
  add: 'named',
  // Only flag changes (the snapshot's --no-assume-unchanged/--no-skip-worktree), but it writes the index.
  'update-index': 'named',
  // Writes the index back, comparing the content of racily clean entries (through their filters).
  'write-tree': 'named',
  status: 'named',
  commit: 'named',
  'read-tree': 'named',
  worktree: 'named',
  branch: 'named',
  'cat-file': 'named',
  'ls-tree': 'named',
  'rev-list': 'named',
  'merge-base': 'named',
  // Raw output only (modes and ids, no patch, so no textconv or external diff); a partial clone may fetch lazily.
  'diff-tree': 'named',
  fetch: 'named',
};

/** Options that would make git run a program of its own choosing (or a diff driver). */
const REFUSED_OPTIONS = /^--(?:textconv|ext-diff|upload-pack|receive-pack|exec)(?:=|$)/;

/** The sections whose subsection names name programs, and what each program key is pinned to. */
const NAMED: Readonly<Record<string, readonly string[]>> = {
  filter: ['clean=', 'smudge=', 'process=', 'required=false'],
  remote: ['uploadpack=git-upload-pack', 'receivepack=git-receive-pack'],
};

/** The `git config --get-regexp` pattern for the sections in NAMED. */
export const NAMED_SECTIONS_PATTERN = `^(${Object.keys(NAMED).join('|')})\\.|^extensions\\.partialclone$`;

export interface GitCommandLine {
  /** What follows `git`: the caller's `-c` options, the pins, then the command. */
  argv: string[];
  /** The subcommand. */
  command: string;
}

/**
 * The command line for `git <args>`. `readNamed` returns the output of `git
 * config --null --get-regexp NAMED_SECTIONS_PATTERN` (called only for commands
 * that can run a named program). Throws for a command stepchain does not run.
 */
export function gitCommandLine(args: readonly string[], readNamed: () => string): GitCommandLine {
  let i = 0;
  const own: string[] = [];
  while (args[i] === '-c' && i + 1 < args.length) {
    own.push('-c', args[i + 1]!);
    i += 2;
  }
  const command = args[i];
  const kind = command === undefined ? undefined : COMMANDS[command];
  if (command === undefined || kind === undefined)
    throw new Error(`stepchain does not run \`git ${command ?? ''}\` (src/git/pins.ts lists the commands it runs)`);
  const end = args.indexOf('--');
  for (const a of args.slice(i + 1, end < 0 ? undefined : end)) {
    if (REFUSED_OPTIONS.test(a)) throw new Error(`stepchain does not run git with ${a.split('=')[0]}`);
  }
  const pins = PINNED_CONFIG.flatMap((p) => ['-c', p]);
  const named = kind === 'named' ? namedPins(readNamed()).flatMap((p) => ['-c', p]) : [];
  // A remote's upload-pack is the first one configured, not the last: only the command line overrides it.
  const rest = command === 'fetch' ? [command, '--upload-pack=git-upload-pack', ...args.slice(i + 1)] : args.slice(i);
  // The caller's -c first: git keeps the last value, so a pin always wins.
  return { argv: [...own, ...pins, ...named, ...rest], command };
}

/** The pins for every filter driver and remote the configuration names (`key\nvalue\0` records). */
export function namedPins(configOutput: string): string[] {
  const names = new Map<string, Set<string>>();
  const values = new Map<string, string>();
  for (const rec of configOutput.split('\0')) {
    const key = rec.split('\n', 1)[0]!;
    values.set(key.toLowerCase(), rec.slice(key.length + 1));
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    if (first < 0 || last <= first) continue; // `filter.clean`: no subsection, names no driver
    const section = key.slice(0, first).toLowerCase();
    if (NAMED[section] === undefined) continue;
    const name = key.slice(first + 1, last);
    // A name whose bytes are not UTF-8 reached us with U+FFFD for them (both readers decode as UTF-8): a pin on
    // that spelling names another driver, and git would still run the configured one.
    if (name.includes('\uFFFD')) {
      throw new IntegrityError(
        `git configuration: ${section} ${JSON.stringify(name)} is not UTF-8 (or holds U+FFFD), so stepchain cannot switch its programs off on the command line; refusing to run git (rename it)`,
      );
    }
    if (name.includes('=')) {
      throw new IntegrityError(
        `git configuration: ${section} ${JSON.stringify(name)} holds "=", so stepchain cannot switch its programs off on the command line; refusing to run git (rename it)`,
      );
    }
    if (!names.has(section)) names.set(section, new Set());
    names.get(section)!.add(name);
  }
  // git keeps the first upload-pack a remote names, and starts a partial clone's lazy fetches itself (no command
  // line of ours to override it): a promisor remote that names one is refused.
  const partial = values.get('extensions.partialclone');
  for (const remote of names.get('remote') ?? []) {
    const own = (k: string): string | undefined => values.get(`remote.${remote.toLowerCase()}.${k}`);
    const promisor = partial === remote || /^(true|yes|on|1)$/i.test(own('promisor') ?? '');
    if (promisor && (own('uploadpack') !== undefined || values.has(`remote.${remote}.uploadpack`)))
      throw new IntegrityError(
        `git configuration: remote.${remote}.uploadpack names a program for the partial clone's lazy fetches; refusing to run git (unset it)`,
      );
  }
  const out: string[] = [];
  for (const [section, set] of names) {
    for (const name of [...set].sort()) for (const kv of NAMED[section]!) out.push(`${section}.${name}.${kv}`);
  }
  return out;
}
