import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { canonical, MAX_NESTING, parse } from '../src/canonical';
import { InputError } from '../src/errors';
import { Journal } from '../src/journal';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { peerPath, python3 } from './helpers/python';
import { tempDir } from './helpers/tmp';

/**
 * One nesting limit (MAX_NESTING in src/canonical) for readers and writers
 * (docs/journal.md, "Nesting"): a row at the limit goes through every command;
 * append refuses deeper values; every reader reports a deeper row as a fault;
 * nothing ever ends in "Maximum call stack size exceeded".
 */
const root = tempDir();
const peer = peerPath('stepchain_ref.py');
const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const agentDir = (id: string): string => path.join(root, '.sdd', 'runtime', 'journal', id);
const run = (args: string[]): CliResult => cli(args, { cwd: root });
function expectClean(r: CliResult): void {
  expectNoStack(r);
  expect(`${r.stdout}${r.stderr}`).not.toMatch(/call stack|RangeError|internal error/i);
}

describe('the nesting limit', () => {
  it('is what the reference reads back: python3, 80 frames deep in its own calls, parses a row at the limit and re-encodes its payload', () => {
    const row = `{"tool_call":${nested(MAX_NESTING - 1)}}`;
    const code = [
      'import json, sys',
      'def at(depth, text):',
      '    if depth: return at(depth - 1, text)',
      '    v = json.loads(text)',
      '    return json.dumps({"prev_hash": "0", "tool_call": v["tool_call"]}, sort_keys=True, separators=(",", ":"))',
      'print(len(at(80, sys.stdin.read())))',
    ].join('\n');
    const r = spawnSync(python3(), ['-c', code], { input: row, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(Number(r.stdout)).toBe(2 * (MAX_NESTING - 1) + '{"prev_hash":"0","tool_call":}'.length);
  });

  it('the library reads and writes exactly up to the limit', () => {
    expect(() => parse(nested(MAX_NESTING))).not.toThrow();
    expect(() => parse(nested(MAX_NESTING + 1))).toThrow(`nested deeper than ${MAX_NESTING} levels`);
    expect(canonical(parse(nested(MAX_NESTING)))).toBe(nested(MAX_NESTING));
    const j = Journal.open(agentDir('lib'), { durability: 'none' });
    expect(() => j.append({ tool_call: parse(nested(MAX_NESTING - 1)) })).not.toThrow();
    expect(() => j.append({ tool_call: parse(nested(MAX_NESTING)) })).toThrow(InputError);
    expect(j.length).toBe(1);
  });

  const atLimit = agentDir('at-limit');
  const tooDeep = agentDir('too-deep');
  beforeAll(() => {
    const j = Journal.open(atLimit, { durability: 'none' });
    j.append({ prompt: 'shallow', tool_call: { name: 'x' } });
    j.append({
      prompt: 'deep',
      tool_call: parse(nested(MAX_NESTING - 1)),
      tool_result: parse(nested(MAX_NESTING - 1)),
    });
    j.append({ prompt: 'after' });
    // A row one level deeper, as the reference would write it (python3 reads and writes it fine).
    mkdirSync(tooDeep, { recursive: true });
    copyFileSync(j.file, path.join(tooDeep, '000000.jsonl'));
    const w = spawnSync(python3(), [peer, 'write', path.join(tooDeep, '000000.jsonl')], {
      input: `{"prompt": "too deep", "tool_call": ${nested(MAX_NESTING)}}\n`,
      encoding: 'utf8',
    });
    expect(w.stderr).toBe('');
  });

  it('append refuses a deeper value with a clear error (exit 2), writing nothing', () => {
    const before = readFileSync(path.join(atLimit, '000000.jsonl'));
    const r = run(['append', atLimit, '--tool-call', nested(MAX_NESTING), '--no-snapshot']);
    expectClean(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`nested deeper than ${MAX_NESTING - 1} levels`);
    expect(readFileSync(path.join(atLimit, '000000.jsonl'))).toEqual(before);
    const ok = run(['append', atLimit, '--tool-call', nested(MAX_NESTING - 1), '--no-snapshot']);
    expect(ok.code).toBe(0);
  });

  it('a journal with rows at the limit goes through every command', () => {
    for (const args of [
      ['verify', atLimit, '--strict'],
      ['replay', atLimit],
      ['replay', atLimit, '--json'],
      ['show', atLimit, '1'],
      ['show', atLimit, '1', '--json'],
      ['report', atLimit, '-o', path.join(root, 'at-limit.html')],
      ['export', atLimit, '-o', path.join(root, 'at-limit.tar')],
      ['receipt', 'verify', path.join(root, 'at-limit.tar')],
      ['replay', path.join(root, 'at-limit.tar'), '--json'],
    ]) {
      const r = run(args);
      expectClean(r);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: expect.any(String) });
    }
  });

  it('a row one level deeper is a fault for every reader (exit 1), never a crash', () => {
    const file = path.join(tooDeep, '000000.jsonl');
    for (const args of [
      ['verify', tooDeep],
      ['replay', tooDeep],
      ['show', tooDeep, '0'],
      ['report', tooDeep, '-o', path.join(root, 'too-deep.html')],
      ['export', tooDeep, '-o', path.join(root, 'too-deep.tar')],
      ['append', tooDeep, '--prompt', 'x', '--no-snapshot'],
    ]) {
      const r = run(args);
      expectClean(r);
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain(`${file}:4`);
      expect(r.stderr).toContain(`nested deeper than ${MAX_NESTING} levels`);
    }
  });
});
