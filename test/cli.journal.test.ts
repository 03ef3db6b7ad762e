import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

// The first append runs the built CLI as a process; the rest run through runCli in this process (the commands' logic
// is the point, and a Node start per call was most of this file's time).
const root = tempDir();
const jfile = (agent: string): string => path.join(root, '.sdd', 'runtime', 'journal', agent, '000000.jsonl');

describe('stepchain append / verify', () => {
  it('appends steps and prints the row; --json prints exactly the row object', async () => {
    writeFileSync(path.join(root, 'in.txt'), 'the input');
    writeFileSync(path.join(root, 'blob.bin'), Buffer.from([0, 1, 2, 255]));
    const r = cli([
      'append',
      'a1',
      '--root',
      root,
      '--input',
      path.join(root, 'in.txt'),
      '--model',
      'm1',
      '--prompt',
      'héllo',
      '--tool-call',
      '{"name":"x","n":123456789012345678901234567890,"f":1.0}',
      '--blob',
      path.join(root, 'blob.bin'),
      '--json',
    ]);
    expectNoStack(r);
    expect(r.code).toBe(0);
    const line = readFileSync(jfile('a1'), 'utf8');
    expect(r.stdout).toBe(line);
    expect(line).toContain('"n":123456789012345678901234567890');
    expect(line).toContain('"f":1.0');
    expect(line).toContain('"prompt":"h\\u00e9llo"');
    const row = JSON.parse(line) as { blob_refs: string[]; input_hash: string };
    expect(row.blob_refs).toHaveLength(2);
    expect(row.blob_refs[0]).toBe(row.input_hash);
    for (const ref of row.blob_refs)
      expect(existsSync(path.join(root, '.sdd', 'runtime', 'cas', ref.slice(0, 2), ref))).toBe(true);
    const h = await cliInProcess(['append', 'a1', '--root', root, '--prompt', 'second']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/appended step 1 to .*000000\.jsonl/);
  });

  it('--prompt-file is taken byte for byte; --input - reads stdin; --input-hash is used as given', async () => {
    writeFileSync(path.join(root, 'p.txt'), 'line one\r\nline two\n\n');
    const r = await cliInProcess(
      ['append', 'a2', '--root', root, '--prompt-file', path.join(root, 'p.txt'), '--input', '-', '--json'],
      { input: 'stdin bytes' },
    );
    expect(r.code).toBe(0);
    const row = JSON.parse(r.stdout) as { prompt: string; input_hash: string };
    expect(row.prompt).toBe('line one\r\nline two\n\n');
    expect(row.input_hash).toBe(require('node:crypto').createHash('sha256').update('stdin bytes').digest('hex'));
    const h = 'ab'.repeat(32);
    const r2 = await cliInProcess(['append', 'a2', '--root', root, '--input-hash', h, '--json']);
    expect(JSON.parse(r2.stdout) as { input_hash: string; blob_refs: string[] }).toMatchObject({
      input_hash: h,
      blob_refs: [],
    });
  });

  it('a journal named by directory outside the project layout keeps its blobs in the --root CAS', async () => {
    const dir = path.join(root, 'loose-journal');
    mkdirSync(dir);
    writeFileSync(path.join(root, 'loose-input.txt'), 'loose input');
    const r = await cliInProcess([
      'append',
      dir,
      '--root',
      root,
      '--input',
      path.join(root, 'loose-input.txt'),
      '--json',
      '--no-snapshot',
    ]);
    expect(r.code).toBe(0);
    const row = JSON.parse(r.stdout) as { input_hash: string; blob_refs: string[] };
    expect(row.blob_refs).toEqual([row.input_hash]);
    expect(existsSync(path.join(root, '.sdd', 'runtime', 'cas', row.input_hash.slice(0, 2), row.input_hash))).toBe(
      true,
    );
  });

  it('verify: human summary, --json shape, exit codes', async () => {
    const ok = await cliInProcess(['verify', 'a1', '--root', root]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^OK .*: 2 steps, head [0-9a-f]{64}\n$/);
    const j = await cliInProcess(['verify', jfile('a1'), '--json', '--strict']);
    const doc = JSON.parse(j.stdout);
    expect(Object.keys(doc)).toEqual(['ok', 'head_hash', 'steps', 'errors', 'fault_count', 'errors_omitted']);
    expect(doc).toMatchObject({ ok: true, steps: 2, errors: [] });
    const dir = await cliInProcess(['verify', path.dirname(jfile('a1'))]);
    expect(dir.code).toBe(0);
    const wrong = await cliInProcess(['verify', 'a1', '--root', root, '--expected-head', '0'.repeat(64), '--json']);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout).errors[0]).toMatchObject({ line: null, kind: 'head_mismatch' });
  });

  it('a tampered journal: verify exits 1 naming file:line; append refuses and leaves it untouched', async () => {
    const file = jfile('a1');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('second', 'SECOND');
    writeFileSync(file, lines.join('\n'));
    const v = await cliInProcess(['verify', 'a1', '--root', root]);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`${file}:2: step_hash_mismatch`);
    const before = readFileSync(file);
    const a = await cliInProcess(['append', 'a1', '--root', root, '--prompt', 'x']);
    expectNoStack(a);
    expect(a.code).toBe(1);
    expect(a.stderr.trim().split('\n')).toHaveLength(1);
    expect(a.stderr).toContain(`${file}:2`);
    expect(a.stderr).toContain('.corrupt');
    expect(readFileSync(file)).toEqual(before);
  });

  const bad: [string, string[], number, RegExp][] = [
    ['unsafe id', ['append', '../evil', '--prompt', 'x'], 2, /unsafe agent id|no such journal/],
    ['dot id', ['append', '..', '--prompt', 'x'], 2, /unsafe|no such/],
    ['tool-call not JSON', ['append', 'b1', '--tool-call', '{nope}'], 2, /--tool-call: not JSON/],
    ['NaN given to append', ['append', 'b1', '--tool-result', '{"x": NaN}'], 2, /tool_result: NaN is not allowed/],
    ['Infinity given to append', ['append', 'b1', '--tool-call', '[Infinity]'], 2, /Infinity is not allowed/],
    [
      'unreadable input',
      ['append', 'b1', '--input', '/nonexistent/file'],
      2,
      /\/nonexistent\/file: cannot read input: no such file/,
    ],
    ['bad input hash', ['append', 'b1', '--input-hash', 'xyz'], 2, /64 lowercase hex/],
    ['unknown option', ['append', 'b1', '--bogus'], 2, /unknown option --bogus/],
    ['missing journal', ['verify', 'nobody'], 2, /no journal for agent "nobody"/],
    ['missing path', ['verify', './no/such/file.jsonl'], 2, /no such journal/],
    ['bad expected head', ['verify', 'a1', '--expected-head', 'abc'], 2, /expected 64 lowercase hex/],
    ['unknown command', ['frobnicate'], 2, /unknown command/],
  ];
  it.each(bad)('%s: one line, exit %#, nothing written', async (_n, args, code, msg) => {
    const cwd = path.join(root, `bad-${Math.random().toString(36).slice(2)}`);
    mkdirSync(cwd);
    const r = await cliInProcess(args, { cwd });
    expectNoStack(r);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('invalid UTF-8, an empty file and an unreadable file are reported, never a crash', async () => {
    const d = path.join(root, 'odd');
    mkdirSync(d);
    writeFileSync(path.join(d, 'utf8.jsonl'), Buffer.from([0xc3, 0x28, 0x0a]));
    const u = await cliInProcess(['verify', path.join(d, 'utf8.jsonl'), '--json']);
    expect(u.code).toBe(1);
    // The reference's list exactly: the malformed line, and no empty_journal beside it.
    expect(JSON.parse(u.stdout).errors).toEqual([
      { line: 1, kind: 'malformed_json', message: 'invalid UTF-8 at column 1' },
    ]);
    // An empty file is a journal whose first write never happened: 0 steps, as the reference says (docs/journal.md).
    writeFileSync(path.join(d, 'empty.jsonl'), '');
    const e = await cliInProcess(['verify', path.join(d, 'empty.jsonl')]);
    expect(e.code).toBe(0);
    expect(e.stdout).toContain('0 steps');
    writeFileSync(path.join(d, 'blank.jsonl'), ' \n\n');
    const b = await cliInProcess(['verify', path.join(d, 'blank.jsonl')]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('empty_journal');
    if (process.getuid?.() !== 0) {
      writeFileSync(path.join(d, 'locked.jsonl'), 'x');
      chmodSync(path.join(d, 'locked.jsonl'), 0);
      const l = await cliInProcess(['verify', path.join(d, 'locked.jsonl')]);
      expect(l.code).toBe(2);
    }
    const dirAsFile = await cliInProcess(['append', 'c1', '--root', root, '--input', d]);
    expect(dirAsFile.code).toBe(2);
    expect(dirAsFile.stderr).toMatch(/cannot read input: is a directory/);
  });
});
