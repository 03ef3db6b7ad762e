import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli as runCli, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { conformanceDir } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/** `stepchain report` through the built CLI (run `npm run build` first). */
const dir = tempDir('stepchain-report-cli-');
const reference = path.join(conformanceDir, 'reference-journal', '000000.jsonl');

/** The built CLI in the test's directory unless told otherwise. */
const cli = (args: string[], cwd = dir): CliResult => runCli(args, { cwd });
/**
 * `cli` through runCli in this process (`cliInProcess`, the code the bundle runs): after the first two tests, which run
 * the real process, what report writes, refuses and says is the point.
 */
const cliIn = (args: string[], cwd = dir): Promise<CliResult> => cliInProcess(args, { cwd });

function tampered(): string {
  const lines = readFileSync(reference, 'utf8').split('\n');
  lines[3] = lines[3]!.replace('"model":"', '"model":"x');
  const d = path.join(dir, 'tampered');
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, '000000.jsonl'), lines.join('\n'));
  return d;
}

describe('stepchain report', () => {
  it('writes the report of an intact journal and exits 0', () => {
    const r = cli(['report', reference, '-o', 'ok.html']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^wrote .*ok\.html: 5 steps, head 12577bced7cc3cb97fe35f0d4554b038572c931336f05f4d5c54dc8a0ff90def, chain intact\n$/,
    );
    const html = readFileSync(path.join(dir, 'ok.html'), 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    // Self-contained: no external resource of any kind can be referenced.
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]*\s(src|href)=/i);
    expect(html).toContain("default-src 'none'".replace(/'/g, '&#39;'));
  });

  it('writes the report of a tampered journal too, exits 1 and names the line on stderr', () => {
    const d = tampered();
    const r = cli(['report', d, '-o', 'bad.html', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { ok: boolean; errors: { line: number; kind: string }[] };
    expect(doc.ok).toBe(false);
    expect(doc.errors[0]).toMatchObject({ line: 4, kind: 'step_hash_mismatch' });
    expect(r.stderr).toMatch(/000000\.jsonl:4: step_hash_mismatch: field tamper/);
    expect(readFileSync(path.join(dir, 'bad.html'), 'utf8')).toContain('stepchain-data');
  });

  it('refuses to replace an existing file, an earlier report too, unless --force (issue 20 changed the earlier report)', async () => {
    expect((await cliIn(['report', reference, '-o', 'again.html'])).code).toBe(0);
    expect((await cliIn(['report', reference, '-o', 'again.html'])).code).toBe(2);
    expect((await cliIn(['report', reference, '-o', 'again.html', '--force'])).code).toBe(0);
    writeFileSync(path.join(dir, 'notes.txt'), 'precious\n');
    const r = await cliIn(['report', reference, '-o', 'notes.txt']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /notes\.txt: exists and is not a stepchain report; refusing to overwrite it \(use --force\)/,
    );
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('precious\n');
    expect((await cliIn(['report', reference, '-o', 'notes.txt', '--force'])).code).toBe(0);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toContain('<!DOCTYPE html>');
  });

  it('leaves no file and no temporary behind on an input error', async () => {
    const out = path.join(dir, 'empty-out');
    mkdirSync(out);
    expect((await cliIn(['report', 'no-such-agent', '-o', path.join(out, 'r.html')])).code).toBe(2);
    expect((await cliIn(['report', reference])).stderr).toMatch(/missing -o/);
    expect((await cliIn(['report', reference, '-o', path.join(dir, 'no-such-dir', 'r.html')])).code).toBe(2);
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('reads a receipt, checking its signature with --public-key', async () => {
    const r = await cliIn([
      'report',
      path.join(conformanceDir, 'reference-receipt.tar'),
      '-o',
      'receipt.html',
      '--public-key',
      path.join(conformanceDir, 'reference-verify.pem'),
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, steps: 5 });
    const html = readFileSync(path.join(dir, 'receipt.html'), 'utf8');
    expect(html).toContain('verified by the generator');
    // Without a key the signature is shown as not checked: written, but never a green verdict (exit 1).
    const noKey = await cliIn([
      'report',
      path.join(conformanceDir, 'reference-receipt.tar'),
      '-o',
      'receipt-nokey.html',
    ]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('no_trusted_key');
    // The summary line names the reason: the chain holds, the signature was not checked (not "does NOT verify").
    expect(noKey.stdout).toContain('chain intact, signature NOT checked');
    expect(noKey.stdout).not.toContain('does NOT verify');
    expect(readFileSync(path.join(dir, 'receipt-nokey.html'), 'utf8')).toContain(
      'signature NOT checked: no trusted public key',
    );
  });

  it('refuses a keyless signer given with a journal, saying it checks receipts, writing nothing', async () => {
    const signer = ['--certificate-identity', 'i', '--certificate-oidc-issuer', 'o'];
    const r = await cliIn(['report', reference, '-o', 'keyless-journal.html', ...signer]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'stepchain: report: --certificate-identity and --certificate-oidc-issuer check a receipt, not a journal',
    );
    expect(readdirSync(dir)).not.toContain('keyless-journal.html');
  });

  it("names a receipt's fault by its journal member and line, as receipt verify does (not the archive's line)", async () => {
    const bytes = readFileSync(path.join(conformanceDir, 'reference-receipt.tar'));
    const at = bytes.indexOf('"model":"');
    expect(at).toBeGreaterThan(0);
    bytes[at + 9] = bytes[at + 9] === 0x78 ? 0x79 : 0x78; // one letter of a model name, the archive still whole
    writeFileSync(path.join(dir, 'edited-receipt.tar'), bytes);
    const report = await cliIn(['report', 'edited-receipt.tar', '-o', 'edited-receipt.html']);
    const verify = await cliIn(['receipt', 'verify', 'edited-receipt.tar']);
    expect([report.code, verify.code]).toEqual([1, 1]);
    const located = (text: string): string[] =>
      text
        .split('\n')
        .filter((l) => l.includes('step_hash_mismatch'))
        .map((l) => /edited-receipt\.tar(:[^ ]*?:[0-9]+): /.exec(l)?.[1] ?? l);
    expect(located(report.stderr)).toEqual(located(verify.stderr));
    expect(located(report.stderr)).toEqual([expect.stringMatching(/^:journal\/000000\.jsonl:[0-9]+$/)]);
    // --json says where its errors' lines are: the journal member, not the archive named by `source`.
    const json = await cliIn(['report', 'edited-receipt.tar', '-o', 'edited-receipt.html', '--force', '--json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as { source: string; lines_in: string; errors: { line: number | null }[] };
    expect(doc.lines_in).toBe(`${doc.source}:journal/000000.jsonl`);
    expect(doc.errors.some((e) => typeof e.line === 'number')).toBe(true);
  });

  it('refuses a receipt it cannot read as one, writing nothing', async () => {
    writeFileSync(path.join(dir, 'junk.tar'), Buffer.alloc(2048, 0x41));
    const r = await cliIn(['report', 'junk.tar', '-o', 'junk.html']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.startsWith('junk.html') || f.includes('.tmp-'))).toEqual([]);
  });

  it('warns about a page too large to open comfortably, and embeds a window with --max-steps / --from', async () => {
    const write = (file: string, n: number, prompt: (seq: number) => string): void =>
      writeSyntheticJournal(file, n, (seq) => ({
        model: null,
        prompt: prompt(seq),
        tool_call: null,
        tool_result: null,
        ts: seq,
      }));
    // 40 steps of 1.3 MB: a page past 64 MiB.
    const heavy = path.join(dir, 'heavy', '000000.jsonl');
    write(heavy, 40, (seq) => `${seq} ${'x'.repeat(1_300_000)}`);
    const whole = await cliIn(['report', heavy, '-o', 'heavy.html']);
    expect(whole.code).toBe(0);
    expect(whole.stderr).toMatch(
      /^stepchain: report: warning: the page embeds 40 steps \(\d\d+ MB\): .* --max-steps N/,
    );
    // Replacing the earlier report needs --force (issue 20).
    const small = await cliIn(['report', heavy, '-o', 'heavy.html', '--max-steps', '5', '--json', '--force']);
    expect(small).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(small.stdout)).toMatchObject({
      ok: true,
      steps: 40,
      window: { first_line: 36, last_line: 40, steps: 5 },
      warnings: [],
    });

    const file = path.join(dir, 'long', '000000.jsonl');
    write(file, 3000, (seq) => `step ${seq}`);
    const from = await cliIn(['report', file, '-o', 'long.html', '--max-steps', '10', '--from', '0']);
    expect(from.code).toBe(0);
    expect(from.stdout).toMatch(/chain intact, lines 1-10 embedded \(10 steps\)$/m);
    expect(statSync(path.join(dir, 'long.html')).size).toBeLessThan(200_000);
    for (const bad of [
      ['--from', '5'],
      ['--max-steps', '0'],
      ['--max-steps', 'ten'],
      ['--max-steps', '10', '--from', '60000'],
    ]) {
      const r = await cliIn(['report', file, '-o', 'long-bad.html', ...bad]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
