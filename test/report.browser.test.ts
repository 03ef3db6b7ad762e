import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { float } from '../src/canonical';
import { computeStepHash, encodeRow, Journal, journalDir, journalFile, type StepRow } from '../src/journal';
import { buildReceipt, generateKeyPair, parsePrivateKey, parsePublicKey } from '../src/receipt';
import { createFork } from '../src/git';
import { reportForkTree, writeReport, type ReportForkNode } from '../src/report';
import { ZERO_HASH } from '../src/util/hash';
import { cliPath, conformanceDir } from './helpers/paths';
import { launchBrowser, openReport, rootData, type Browser } from './helpers/report-browser';

/**
 * The report in a real browser (Debian's chromium via playwright-core), opened
 * from a file:// URL with every network request recorded and refused.
 */
jest.setTimeout(180_000);

let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'stepchain-report-'));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A small project with a recorded run whose steps carry blobs in the CAS. */
function sampleProject(name: string): { root: string; file: string } {
  const root = path.join(dir, name);
  const j = Journal.open(journalDir(root, 'agent-web'), { durability: 'none' });
  j.append({
    input: Buffer.from('user turn 0: fix the tests\n'),
    model: 'm-1',
    prompt: 'The tests fail. Why?',
    tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
    tool_result: { exit_code: 1, stdout: 'FAILED test_add' },
  });
  j.append({
    input: Buffer.from('user turn 1\n'),
    model: 'm-1',
    prompt: 'Read calc.py',
    tool_call: { name: 'read_file', args: { path: 'src/calc.py' } },
    tool_result: { content: 'def add(a, b):\n    return a - b\n' },
    blobs: [Buffer.from('def add(a, b):\n    return a - b\n'), Buffer.from([0, 1, 2, 3, 255, 254])],
  });
  j.append({
    input: Buffer.from('user turn 2\n'),
    model: 'm-2',
    prompt: 'Fix it. Résumé ✓ 😀',
    tool_call: { name: 'edit_file', args: { n: 10n ** 30n, ratio: float(1), tiny: 1e-7 } },
    tool_result: { ok: true },
    blobs: [Buffer.alloc(300 * 1024, 0x61)],
  });
  j.append({
    input: Buffer.from('user turn 3\n'),
    model: 'm-2',
    prompt: 'Run the tests again',
    tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
    tool_result: { exit_code: 0, stdout: '1 passed' },
  });
  j.append({
    input: Buffer.from('user turn 4\n'),
    model: 'm-2',
    prompt: 'Summarise',
    tool_call: null,
    tool_result: { summary: 'fixed add()' },
  });
  return { root, file: journalFile(root, 'agent-web') };
}

/** A journal of `n` steps written directly (fast), in canonical rows. */
function bigJournal(file: string, n: number): void {
  const lines: string[] = [];
  let prev = ZERO_HASH;
  for (let seq = 0; seq < n; seq++) {
    const fields = {
      prev_hash: prev,
      input_hash: ZERO_HASH,
      model: 'model-x',
      prompt: `step ${seq}: ${'lorem ipsum '.repeat(seq % 7)}`,
      tool_call: { name: seq % 3 === 0 ? 'run' : 'read_file', args: { i: seq } },
      tool_result: { ok: seq % 5 !== 0, needle: seq === 7777 ? 'the-needle-in-the-haystack' : null },
    };
    const row: StepRow = {
      ...fields,
      blob_refs: [],
      seq,
      step_hash: computeStepHash(fields),
      ts: 1_700_000_000 + seq / 10,
    };
    lines.push(encodeRow(row));
    prev = row.step_hash;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${lines.join('\n')}\n`);
}

const selectedLine = async (o: { page: import('playwright-core').Page }): Promise<string | undefined> =>
  o.page.evaluate(() => document.getElementById('detail')?.dataset.line);

describe('report in headless Chromium', () => {
  it('verifies the reference journal written by the Python implementation, with no network request', async () => {
    const expected = JSON.parse(readFileSync(path.join(conformanceDir, 'reference-expected.json'), 'utf8')) as {
      journal_head: string;
      steps: number;
    };
    const out = path.join(dir, 'reference.html');
    const r = writeReport(path.join(conformanceDir, 'reference-journal', '000000.jsonl'), out);
    expect(r.ok).toBe(true);
    const o = await openReport(browser, out);
    expect(await rootData(o.page)).toMatchObject({
      verified: 'true',
      steps: String(expected.steps),
      headHash: expected.journal_head,
    });
    expect(o.requests).toEqual([]);
    expect(o.problems).toEqual([]);
    await o.page.close();
  });

  it('walks an intact run with keyboard and mouse, searches, and shows bundled blobs', async () => {
    const { root } = sampleProject('walk');
    const out = path.join(dir, 'walk.html');
    const r = writeReport('agent-web', out, { root, maxBlobBytes: 256 * 1024 });
    expect(r).toMatchObject({ ok: true, steps: 5, blobs: { embedded: 7, skipped: 1 } });
    const o = await openReport(browser, out);
    const { page } = o;
    expect(await rootData(page)).toMatchObject({ verified: 'true', steps: '5' });
    expect(await page.textContent('#status-title')).toContain('Chain intact');
    expect(await page.textContent('#meta')).toContain('agent-web');

    expect(await selectedLine(o)).toBe('1');
    await page.keyboard.press('ArrowRight');
    expect(await selectedLine(o)).toBe('2');
    await page.keyboard.press('j');
    expect(await selectedLine(o)).toBe('3');
    await page.keyboard.press('k');
    await page.keyboard.press('ArrowLeft');
    expect(await selectedLine(o)).toBe('1');
    await page.keyboard.press('End');
    expect(await selectedLine(o)).toBe('5');
    await page.keyboard.press('Home');
    expect(await selectedLine(o)).toBe('1');
    await page.click('#list .item[data-entry="3"]');
    expect(await selectedLine(o)).toBe('4');
    // Exact values survive: the big integer and the float 1.0, and non-ASCII text.
    await page.keyboard.press('ArrowLeft');
    const detail = (await page.textContent('#detail')) ?? '';
    expect(detail).toContain('1000000000000000000000000000000');
    expect(detail).toContain('"ratio": 1.0');
    expect(detail).toContain('1e-07');
    expect(detail).toContain('Résumé ✓ 😀');
    expect(detail).toMatch(/Changed\s*model, prompt, tool_call, tool_result/);

    // Search: "/" focuses the box, typing filters, Enter goes back to the list.
    await page.keyboard.press('/');
    await page.keyboard.type('read_file');
    await page.keyboard.press('Enter');
    expect(await page.textContent('#count')).toMatch(/^1 of 5 lines/);
    expect(await selectedLine(o)).toBe('2');
    await page.fill('#search', 'no step says this');
    await page.keyboard.press('Enter');
    expect(await page.textContent('#count')).toMatch(/^0 of 5/);
    await page.focus('#search');
    await page.keyboard.press('Escape');
    expect(await page.textContent('#count')).toMatch(/^5 of 5/);

    // Blobs: embedded ones re-hashed in the page, the big one listed as skipped.
    const blobs = (await page.textContent('#blobs')) ?? '';
    expect(blobs).toContain('digest verified');
    expect(blobs).toMatch(/not embedded: larger than the 262144-byte per-blob cap/);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.click('#detail details.preview summary >> nth=1');
    expect(await page.textContent('#detail')).toContain('return a - b');

    expect(o.requests).toEqual([]);
    expect(o.problems).toEqual([]);
    if (process.env.STEPCHAIN_REPORT_SCREENSHOT)
      await page.screenshot({ path: process.env.STEPCHAIN_REPORT_SCREENSHOT, fullPage: true });
    await page.close();
  });

  it('shows hostile text as text: markup in a step cannot run or load anything', async () => {
    const file = path.join(dir, 'hostile', '000000.jsonl');
    const evil =
      '</script><script>document.documentElement.dataset.verified="true"</script><img src="http://127.0.0.1:9/x.png" onerror="alert(1)"><!--';
    const fields = {
      prev_hash: ZERO_HASH,
      input_hash: ZERO_HASH,
      model: evil,
      prompt: evil,
      tool_call: { [evil]: evil },
      tool_result: '\u2028\u2029]]>',
    };
    const good: StepRow = { ...fields, blob_refs: [], seq: 0, step_hash: computeStepHash(fields), ts: 1 };
    const bad: StepRow = { ...fields, blob_refs: [], prev_hash: good.step_hash, seq: 1, step_hash: ZERO_HASH, ts: 2 };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${encodeRow(good)}\n${encodeRow(bad)}\n`);
    const out = path.join(dir, 'hostile.html');
    writeReport(file, out);
    const o = await openReport(browser, out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'false', firstFaultLine: '2' });
    expect(await o.page.$$eval('img, script:not([id])', (n) => n.length)).toBe(1); // only the page's own script
    await o.page.keyboard.press('Home');
    expect(await o.page.textContent('#detail')).toContain(evil);
    expect(o.requests).toEqual([]);
    expect(o.problems).toEqual([]);
    await o.page.close();
  });

  it('shows a tampered journal as tampered, with the faulty line', async () => {
    const { root, file } = sampleProject('tamper');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[3] = lines[3]!.replace('1 passed', '9 passed');
    const tamperedDir = path.join(root, 'copy');
    mkdirSync(tamperedDir);
    writeFileSync(path.join(tamperedDir, '000000.jsonl'), lines.join('\n'));
    const out = path.join(dir, 'tampered.html');
    const r = writeReport(tamperedDir, out, { root });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatchObject({ line: 4, kind: 'step_hash_mismatch' });
    const o = await openReport(browser, out);
    expect(await rootData(o.page)).toMatchObject({
      verified: 'false',
      firstFaultLine: '4',
      firstFaultKind: 'step_hash_mismatch',
      faultCount: '1',
    });
    expect(await o.page.textContent('#status-title')).toMatch(/TAMPERED.*first at line 4/);
    expect(await o.page.textContent('#faults')).toContain('line 4: step_hash_mismatch');
    expect(await selectedLine(o)).toBe('4'); // opened on the first faulty step
    await o.page.keyboard.press('Home');
    expect(await selectedLine(o)).toBe('1');
    await o.page.click('#faults button');
    expect(await selectedLine(o)).toBe('4');
    expect(await o.page.textContent('#detail')).toContain('Recomputed');
    expect(await o.page.getAttribute('#list .item[data-entry="3"]', 'class')).toContain('faulty');
    expect(o.requests).toEqual([]);
    expect(o.problems).toEqual([]);
    await o.page.close();
  });

  it('reports a chain break and a malformed line by line, as the CLI does', async () => {
    const { file } = sampleProject('broken');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.splice(1, 1); // drop step 1: line 2 now breaks the chain
    lines.splice(3, 0, '{"not": "a row"}');
    const broken = path.join(dir, 'broken.jsonl');
    writeFileSync(broken, lines.join('\n'));
    const out = path.join(dir, 'broken.html');
    const r = writeReport(broken, out);
    const o = await openReport(browser, out);
    const data = await rootData(o.page);
    expect(data).toMatchObject({
      verified: 'false',
      firstFaultLine: String(r.errors[0]!.line),
      firstFaultKind: r.errors[0]!.kind,
      faultCount: String(r.errors.length),
    });
    const shown = await o.page.$$eval('#faults li', (lis) => lis.map((li) => li.textContent));
    expect(shown).toEqual(r.errors.map((e) => `line ${e.line}: ${e.kind}: ${e.message}`));
    await o.page.close();
  });

  it('verifies a 10,000-step journal incrementally and stays responsive', async () => {
    const file = path.join(dir, 'big', '000000.jsonl');
    bigJournal(file, 10_000);
    const out = path.join(dir, 'big.html');
    expect(writeReport(file, out).ok).toBe(true);
    const o = await openReport(browser, out);
    const { page } = o;
    expect(await rootData(page)).toMatchObject({ verified: 'true', steps: '10000' });
    // Only the visible part of the list is in the DOM.
    expect(await page.$$eval('#list .item', (items) => items.length)).toBeLessThan(200);
    await page.keyboard.press('End');
    expect(await selectedLine(o)).toBe('10000');
    expect(await page.textContent('#detail')).toContain('Step 9999');
    await page.keyboard.press('ArrowLeft');
    expect(await selectedLine(o)).toBe('9999');
    expect(await page.isVisible('#list .item.selected')).toBe(true);
    await page.fill('#search', 'the-needle-in-the-haystack');
    await page.keyboard.press('Enter');
    expect(await page.textContent('#count')).toMatch(/^1 of 10,000/);
    expect(await selectedLine(o)).toBe('7778');
    expect(o.problems).toEqual([]);
    expect(o.requests).toEqual([]);
    await page.close();
  });

  it('moves the selection while a large journal is still verifying', async () => {
    const file = path.join(dir, 'big2', '000000.jsonl');
    bigJournal(file, 10_000);
    const out = path.join(dir, 'big2.html');
    writeReport(file, out);
    const page = await browser.context.newPage();
    // Record every status title the page shows, to see the progress it reports while verifying.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { seenTitles: string[] }).seenTitles = seen;
      document.addEventListener('DOMContentLoaded', () => {
        const t = document.getElementById('status-title');
        if (t)
          new MutationObserver(() => seen.push(t.textContent ?? '')).observe(t, {
            childList: true,
            characterData: true,
            subtree: true,
          });
      });
    });
    await page.goto(`file://${out}`);
    await page.waitForSelector('#list .item');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.getElementById('detail')?.dataset.line)).toBe('3');
    await page.waitForSelector('html[data-verified="true"]', { timeout: 120_000 });
    expect(await page.evaluate(() => document.getElementById('detail')?.dataset.line)).toBe('3');
    const titles = await page.evaluate(() => (window as unknown as { seenTitles: string[] }).seenTitles);
    expect(titles.some((t) => /^Verifying in this browser… [\d,]+ \/ 10,000 lines$/.test(t))).toBe(true);
    expect(titles[titles.length - 1]).toMatch(/Chain intact: 10,000 steps/);
    await page.close();
  });

  it('shows a signed receipt: manifest, key id, what was checked where', async () => {
    const out = path.join(dir, 'receipt.html');
    const receipt = path.join(conformanceDir, 'reference-receipt.tar');
    const key = parsePublicKey(readFileSync(path.join(conformanceDir, 'reference-verify.pem')), 'reference-verify.pem');
    const r = writeReport(receipt, out, { publicKeys: [key] });
    expect(r.ok).toBe(true);
    const o = await openReport(browser, out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'true' });
    const text = (await o.page.textContent('#receipt')) ?? '';
    expect(text).toContain(`signed, key id ${key.keyId}`);
    expect(text).toContain('verified by the generator');
    expect(text).toContain('bernstein_version');
    expect(text).toContain('Checked in this browser');
    expect(o.requests).toEqual([]);
    await o.page.close();
  });

  it('marks a receipt whose signature fails, and one whose journal was altered', async () => {
    const { file } = sampleProject('receipt');
    const signer = generateKeyPair();
    const other = generateKeyPair();
    const built = buildReceipt(file, { signKey: parsePrivateKey(Buffer.from(signer.privateKeyPem), 'k') });
    const tar = path.join(dir, 'sample-receipt.tar');
    writeFileSync(tar, built.bytes);
    const out = path.join(dir, 'bad-sig.html');
    const r = writeReport(tar, out, { publicKeys: [parsePublicKey(Buffer.from(other.publicKeyPem), 'other')] });
    expect(r.ok).toBe(false);
    const o = await openReport(browser, out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'false', firstFaultKind: 'signature_invalid' });
    expect(await o.page.textContent('#receipt')).toContain('FAILED');
    await o.page.close();

    // The same receipt with a tool result changed inside the archive (tar headers do not cover member data).
    const altered = Buffer.from(built.bytes);
    altered.write('fixed sub()', altered.indexOf('fixed add()'), 'latin1');
    writeFileSync(tar, altered);
    const r2 = writeReport(tar, path.join(dir, 'altered.html'), {
      publicKeys: [parsePublicKey(Buffer.from(signer.publicKeyPem), 'signer')],
      force: true,
    });
    expect(r2.ok).toBe(false);
    const o2 = await openReport(browser, path.join(dir, 'altered.html'));
    expect(await rootData(o2.page)).toMatchObject({
      verified: 'false',
      firstFaultLine: '5',
      firstFaultKind: 'step_hash_mismatch',
    });
    await o2.page.close();
  });

  it('works from the built CLI bundle (dist/cli.js keeps the page script), intact and tampered', async () => {
    const ref = path.join(conformanceDir, 'reference-journal', '000000.jsonl');
    const okOut = path.join(dir, 'dist-ok.html');
    expect(spawnSync(process.execPath, [cliPath, 'report', ref, '-o', okOut]).status).toBe(0);
    const o = await openReport(browser, okOut);
    expect(await rootData(o.page)).toMatchObject({ verified: 'true', steps: '5' });
    expect(o.problems).toEqual([]);
    await o.page.close();

    const bad = path.join(dir, 'dist-bad.jsonl');
    const lines = readFileSync(ref, 'utf8').split('\n');
    [lines[1], lines[2]] = [lines[2]!, lines[1]!];
    writeFileSync(bad, lines.join('\n'));
    const badOut = path.join(dir, 'dist-bad.html');
    expect(spawnSync(process.execPath, [cliPath, 'report', bad, '-o', badOut]).status).toBe(1);
    const o2 = await openReport(browser, badOut);
    expect(await rootData(o2.page)).toMatchObject({
      verified: 'false',
      firstFaultLine: '2',
      firstFaultKind: 'seq_mismatch',
    });
    if (process.env.STEPCHAIN_REPORT_SCREENSHOT)
      await o2.page.screenshot({ path: process.env.STEPCHAIN_REPORT_SCREENSHOT.replace(/\.png$/, '-bad.png') });
    await o2.page.close();
  });

  it('draws the real fork tree of a run forked with src/git (a fork of a fork included)', async () => {
    const root = path.join(dir, 'forked');
    mkdirSync(root);
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x.invalid',
    };
    const git = (args: string[], cwd = root): void => void execFileSync('git', args, { cwd, env, stdio: 'ignore' });
    writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    git(['init', '-q', '-b', 'main']);
    git(['add', '-A']);
    git(['commit', '-q', '-m', 'initial']);
    const j = Journal.open(journalDir(root, 'agent-f'), { durability: 'none' });
    for (let i = 0; i < 3; i++) j.append({ prompt: `step ${i}`, tool_result: { i } });
    const a = await createFork({ root, sessionId: 'agent-f', fromStep: 1, label: 'try a', env });
    await createFork({ root: a.fork_worktree, sessionId: a.fork_session_id, fromStep: 0, env });
    const tree = await reportForkTree(root, 'agent-f', env);
    expect(tree).toMatchObject({
      id: 'agent-f',
      current: true,
      children: [{ id: a.fork_session_id, label: 'try a', from_step: 1, children: [{ from_step: 0, children: [] }] }],
    });
    // From inside the fork, the same tree with the fork marked as the current run.
    expect(await reportForkTree(a.fork_worktree, a.fork_session_id, env)).toMatchObject({
      id: 'agent-f',
      current: false,
      children: [{ current: true }],
    });
    expect(await reportForkTree(dir, 'agent-f', env)).toBeNull();

    const out = path.join(dir, 'real-forks.html');
    writeReport('agent-f', out, { root, forks: tree });
    const o = await openReport(browser, out);
    const nodes = await o.page.$$eval('#forks .node', (n) => n.map((x) => x.textContent ?? ''));
    expect(nodes).toHaveLength(3);
    expect(nodes[1]).toContain(`${a.fork_session_id} · “try a” · from step 1`);
    expect(o.problems).toEqual([]);
    await o.page.close();
  });

  it('draws a fork tree given to it', async () => {
    const forks: ReportForkNode = {
      id: 'agent-web',
      current: true,
      children: [
        {
          id: 'fork-try-a-20260101-000000-abcdef',
          label: 'try a',
          from_step: 1,
          branch: 'fork/main/fork-try-a',
          children: [{ id: 'fork-20260101-000001-123456', from_step: 0, children: [] }],
        },
        { id: 'fork-20260102-000000-fedcba', from_step: 3, children: [] },
      ],
    };
    const out = path.join(dir, 'forks.html');
    writeReport(path.join(conformanceDir, 'reference-journal', '000000.jsonl'), out, { forks });
    const o = await openReport(browser, out);
    expect(await o.page.isVisible('#forks')).toBe(true);
    const nodes = await o.page.$$eval('#forks .node', (n) => n.map((x) => x.textContent));
    expect(nodes).toEqual([
      'agent-web · (this report)',
      'fork-try-a-20260101-000000-abcdef · “try a” · from step 1 · branch fork/main/fork-try-a',
      'fork-20260101-000001-123456 · from step 0',
      'fork-20260102-000000-fedcba · from step 3',
    ]);
    expect(await o.page.$$eval('#forks ul ul ul .node', (n) => n.length)).toBe(1);
    await o.page.close();
  });
});
