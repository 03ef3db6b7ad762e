/**
 * An option given an empty value (`--root=`, `--dir "$UNSET"`) is a usage error naming the option, for every option
 * of every command but the few whose empty value means something (`append --prompt ''`). Before, `--root ''` and
 * `audit verify --dir ''` were the current directory (`check --root "$UNSET"` checked whatever the current directory
 * held; `audit verify --dir=` failed with exit 1, "empty_audit_log"), `check --journals=` a pattern matching nothing
 * (exit 1), `export -o ''` "export:  is a directory".
 */
import path from 'node:path';
import { commands } from '../src/cli/commands';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-empty-values-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key') };

const cases: [string, string[], number][] = [];
for (const c of commands) {
  for (const [name, spec] of Object.entries(c.options)) {
    if (spec.kind === 'flag' || spec.emptyOk === true) continue;
    const code = Math.min(2, c.maxExitCode ?? 2);
    cases.push([`${c.name.join(' ')} --${name}=`, [...c.name, `--${name}=`], code]);
    if (spec.short !== undefined)
      cases.push([`${c.name.join(' ')} -${spec.short} ''`, [...c.name, `-${spec.short}`, ''], code]);
  }
}

describe('an empty option value is a usage error naming the option', () => {
  test('there are such options to check', () => {
    expect(cases.length).toBeGreaterThan(50);
  });

  test.each(cases)('%s', async (_what, argv, code) => {
    const r = await cliInProcess(argv, { cwd: dir, input: '', env: ENV });
    expectNoStack(r);
    expect(r.code).toBe(code);
    const option = argv.at(-1) === '' ? argv.at(-2)! : argv.at(-1)!.slice(0, -1);
    const long = option.startsWith('--') ? option : undefined;
    expect(r.stderr).toContain('needs a value (got an empty one)');
    if (long !== undefined) expect(r.stderr).toContain(long);
  });

  test('`append --prompt` and `--model` take an empty text', async () => {
    const r = await cliInProcess(['append', 'a1', '--prompt', '', '--model=', '--no-snapshot', '--json'], {
      cwd: dir,
      input: '',
      env: ENV,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ prompt: '', model: '' });
  });
});
