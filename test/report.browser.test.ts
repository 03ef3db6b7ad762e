import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { float } from '../src/canonical';
import { computeStepHash, encodeRow, Journal, journalDir, journalFile, type StepRow } from '../src/journal';
import { buildReceipt, generateKeyPair, parsePrivateKey, parsePublicKey, readTar, writeTar } from '../src/receipt';
import { createFork } from '../src/forks';
import { reportForkTree, writeReport, type ReportForkNode } from '../src/report';
import { bundledChromium, chromiumVersion } from './helpers/chromium';
import { ZERO_HASH } from '../src/util/hash';
import { cliPath, conformanceDir } from './helpers/paths';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { launchBrowser, openReport, rootData, type Browser, type OpenedReport } from './helpers/report-browser';

/**
 * The report in a real browser (the Chromium helpers/chromium.ts finds, driven by
 * playwright-core), opened from a file:// URL with every network request recorded and refused.
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

/**
 * The reports open one after another in one page, each a navigation of it, with openReport's watch (every request
 * other than the report's own load recorded and refused, page and console errors) set once and read per report:
 * a new page per report cost ~0.24 s of CPU, a navigation ~0.17 s (20 of each, measured). The pages that change how
 * the report is shown (colour scheme, width) or watch it while it loads stay pages of their own.
 */
let shared: { page: Page; url: string; requests: string[]; problems: string[] } | undefined;
async function open(file: string): Promise<OpenedReport> {
  if (shared === undefined) {
    const s = { page: await browser.context.newPage(), url: '', requests: [] as string[], problems: [] as string[] };
    s.page.on('request', (r) => {
      if (r.url() !== s.url) s.requests.push(r.url());
    });
    await s.page.route('**/*', (route) => {
      if (route.request().url() === s.url) return route.continue();
      s.requests.push(route.request().url());
      return route.abort();
    });
    s.page.on('pageerror', (e) => s.problems.push(`pageerror: ${e.message}`));
    s.page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') s.problems.push(`console ${m.type()}: ${m.text()}`);
    });
    shared = s;
  }
  shared.url = pathToFileURL(file).href;
  shared.requests = [];
  shared.problems = [];
  await shared.page.goto(shared.url);
  await shared.page.waitForSelector('html[data-verify-state="done"]', { timeout: 120_000 });
  return { page: shared.page, requests: shared.requests, problems: shared.problems };
}

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
  writeSyntheticJournal(file, n, (seq) => ({
    model: 'model-x',
    prompt: `step ${seq}: ${'lorem ipsum '.repeat(seq % 7)}`,
    tool_call: { name: seq % 3 === 0 ? 'run' : 'read_file', args: { i: seq } },
    tool_result: { ok: seq % 5 !== 0, needle: seq === 7777 ? 'the-needle-in-the-haystack' : null },
    ts: 1_700_000_000 + seq / 10,
  }));
}

let tenThousand: string | undefined;
/** One 10,000-step journal (made on first use) for the tests that only read it. */
function tenThousandSteps(): string {
  if (tenThousand === undefined) {
    tenThousand = path.join(dir, 'big', '000000.jsonl');
    bigJournal(tenThousand, 10_000);
  }
  return tenThousand;
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
    const o = await open(out);
    expect(await rootData(o.page)).toMatchObject({
      verified: 'true',
      steps: String(expected.steps),
      headHash: expected.journal_head,
    });
    expect(o.requests).toEqual([]);
    expect(o.problems).toEqual([]);
  });

  it('walks an intact run with keyboard and mouse, searches, and shows bundled blobs', async () => {
    const { root } = sampleProject('walk');
    const out = path.join(dir, 'walk.html');
    const r = writeReport('agent-web', out, { root, maxBlobBytes: 256 * 1024 });
    expect(r).toMatchObject({ ok: true, steps: 5, blobs: { embedded: 7, skipped: 1 } });
    const o = await open(out);
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
    // "Changed" names each value with what it was and became, into objects, as the terminal replay does
    // (a long tool result changed in one key shows that key, not the first 80 characters of both).
    expect(detail).toContain('model: m-1 → m-2');
    expect(detail).toContain('prompt: Read calc.py → Fix it. Résumé ✓ 😀');
    expect(detail).toContain(
      [
        '- tool_call.args.path: src/calc.py',
        `+ tool_call.args.n: 1${'0'.repeat(30)}`,
        '+ tool_call.args.ratio: 1.0',
        '+ tool_call.args.tiny: 1e-07',
        'tool_call.name: read_file → edit_file',
      ].join('\n'),
    );

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
    const o = await open(out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'false', firstFaultLine: '2' });
    expect(await o.page.$$eval('img, script:not([id])', (n) => n.length)).toBe(1); // only the page's own script
    await o.page.keyboard.press('Home');
    expect(await o.page.textContent('#detail')).toContain(evil);
    expect(o.requests).toEqual([]);
    expect(o.problems).toEqual([]);
  });

  it('shows bidi, zero-width and tag characters as escapes: a step cannot reorder or hide what the page shows', async () => {
    const file = path.join(dir, 'bidi', '000000.jsonl');
    // "rm -rf ~ #" shown as "# ~ fr- mr" behind an override, with invisible text and a tag-character message.
    const evil = 'ls \u202e~ fr- mr\u202c \u2066x\u2069\u200b\ufeff\u{E0049}\u{E0067}';
    const fields = {
      prev_hash: ZERO_HASH,
      input_hash: ZERO_HASH,
      model: `m\u202e1`,
      prompt: evil,
      tool_call: { name: `bash\u202e`, args: { cmd: evil } },
      tool_result: evil,
    };
    const row: StepRow = { ...fields, blob_refs: [], seq: 0, step_hash: computeStepHash(fields), ts: 1 };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${encodeRow(row)}\n`);
    const out = path.join(dir, 'bidi.html');
    writeReport(file, out, { title: 'stepchain: .sdd/runtime/journal/a\u202eb/000000.jsonl' });
    const o = await open(out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'true' });
    await o.page.keyboard.press('Home');
    const shown = await o.page.evaluate(() => document.title + document.body.innerText);
    expect(shown).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b\ufeff]|\udb40/);
    expect(shown).toContain('ls \\u202e~ fr- mr\\u202c \\u2066x\\u2069\\u200b\\ufeff\\u{e0049}\\u{e0067}');
    expect(shown).toContain('journal/a\\u202eb/000000.jsonl');
    expect(o.problems).toEqual([]);
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
    const o = await open(out);
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
    const o = await open(out);
    const data = await rootData(o.page);
    expect(data).toMatchObject({
      verified: 'false',
      firstFaultLine: String(r.errors[0]!.line),
      firstFaultKind: r.errors[0]!.kind,
      faultCount: String(r.errors.length),
    });
    const shown = await o.page.$$eval('#faults li', (lis) => lis.map((li) => li.textContent));
    expect(shown).toEqual(r.errors.map((e) => `line ${e.line}: ${e.kind}: ${e.message}`));
  });

  it('verifies a 10,000-step journal incrementally and stays responsive', async () => {
    const file = tenThousandSteps();
    const out = path.join(dir, 'big.html');
    expect(writeReport(file, out).ok).toBe(true);
    const o = await open(out);
    const { page } = o;
    expect(await rootData(page)).toMatchObject({ verified: 'true', steps: '10000' });
    // The step counter counts every step once verification is done (not the first chunk's).
    expect(await page.textContent('#detail-position')).toBe('1 / 10,000 shown');
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
  });

  it('moves the selection while a large journal is still verifying', async () => {
    const file = tenThousandSteps();
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
    const o = await open(out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'true', signature: 'verified', signatureKey: key.keyId });
    const text = (await o.page.textContent('#receipt')) ?? '';
    expect(text).toContain(`verified in this browser under key ${key.keyId}`);
    expect(text).toContain('verified by the generator');
    expect(await o.page.textContent('#status-title')).toMatch(/Chain intact.*signature verified/);
    expect(text).toContain('bernstein_version');
    expect(text).toContain('Checked in this browser');
    expect(o.requests).toEqual([]);
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
    const o = await open(out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'false', firstFaultKind: 'signature_invalid' });
    expect(await o.page.textContent('#receipt')).toContain('FAILED');

    // The same receipt with a tool result changed inside the archive (tar headers do not cover member data).
    const altered = Buffer.from(built.bytes);
    altered.write('fixed sub()', altered.indexOf('fixed add()'), 'latin1');
    writeFileSync(tar, altered);
    const r2 = writeReport(tar, path.join(dir, 'altered.html'), {
      publicKeys: [parsePublicKey(Buffer.from(signer.publicKeyPem), 'signer')],
      force: true,
    });
    expect(r2.ok).toBe(false);
    const o2 = await open(path.join(dir, 'altered.html'));
    expect(await rootData(o2.page)).toMatchObject({
      verified: 'false',
      firstFaultLine: '5',
      firstFaultKind: 'step_hash_mismatch',
    });
  });

  it('works from the built CLI bundle (dist/cli.js keeps the page script), intact and tampered', async () => {
    const ref = path.join(conformanceDir, 'reference-journal', '000000.jsonl');
    const okOut = path.join(dir, 'dist-ok.html');
    expect(spawnSync(process.execPath, [cliPath, 'report', ref, '-o', okOut]).status).toBe(0);
    const o = await open(okOut);
    expect(await rootData(o.page)).toMatchObject({ verified: 'true', steps: '5' });
    expect(o.problems).toEqual([]);

    const bad = path.join(dir, 'dist-bad.jsonl');
    const lines = readFileSync(ref, 'utf8').split('\n');
    [lines[1], lines[2]] = [lines[2]!, lines[1]!];
    writeFileSync(bad, lines.join('\n'));
    const badOut = path.join(dir, 'dist-bad.html');
    expect(spawnSync(process.execPath, [cliPath, 'report', bad, '-o', badOut]).status).toBe(1);
    const o2 = await open(badOut);
    expect(await rootData(o2.page)).toMatchObject({
      verified: 'false',
      firstFaultLine: '2',
      firstFaultKind: 'seq_mismatch',
    });
    if (process.env.STEPCHAIN_REPORT_SCREENSHOT)
      await o2.page.screenshot({ path: process.env.STEPCHAIN_REPORT_SCREENSHOT.replace(/\.png$/, '-bad.png') });
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
    const o = await open(out);
    const nodes = await o.page.$$eval('#forks .node', (n) => n.map((x) => x.textContent ?? ''));
    expect(nodes).toHaveLength(3);
    expect(nodes[1]).toContain(`${a.fork_session_id} · “try a” · from step 1`);
    expect(o.problems).toEqual([]);
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
    const o = await open(out);
    expect(await o.page.isVisible('#forks')).toBe(true);
    const nodes = await o.page.$$eval('#forks .node', (n) => n.map((x) => x.textContent));
    expect(nodes).toEqual([
      'agent-web · (this report)',
      'fork-try-a-20260101-000000-abcdef · “try a” · from step 1 · branch fork/main/fork-try-a',
      'fork-20260101-000001-123456 · from step 0',
      'fork-20260102-000000-fedcba · from step 3',
    ]);
    expect(await o.page.$$eval('#forks ul ul ul .node', (n) => n.length)).toBe(1);
  });

  it('lists 10,000 blobs it could not embed as a summary and pages of rows, not a 300,000-pixel table', async () => {
    const file = path.join(dir, 'manyblobs', '000000.jsonl');
    const lines: string[] = [];
    let prev = ZERO_HASH;
    for (let seq = 0; seq < 10; seq++) {
      const fields = {
        prev_hash: prev,
        input_hash: ZERO_HASH,
        model: 'm',
        prompt: `p${seq}`,
        tool_call: null,
        tool_result: null,
      };
      const refs = Array.from({ length: 1000 }, (_, i) =>
        createHash('sha256').update(`blob ${seq} ${i}`).digest('hex'),
      );
      const row: StepRow = { ...fields, blob_refs: refs, seq, step_hash: computeStepHash(fields), ts: 1 + seq };
      lines.push(encodeRow(row));
      prev = row.step_hash;
    }
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${lines.join('\n')}\n`);
    const out = path.join(dir, 'manyblobs.html');
    expect(writeReport(file, out, { root: path.join(dir, 'manyblobs') })).toMatchObject({
      ok: true,
      blobs: { embedded: 0, skipped: 10_000 },
    });
    const o = await open(out);
    expect(await o.page.textContent('#blob-summary')).toMatch(
      /10,000 referenced blobs: 0 embedded .*10,000 not embedded: not in the project’s blob store/,
    );
    expect(await o.page.$$eval('#blobs tr', (rows) => rows.length)).toBe(101); // header + one page
    const height = async (): Promise<number> => o.page.$eval('#blobs', (e) => e.getBoundingClientRect().height);
    expect(await height()).toBeLessThan(6000);
    expect(await o.page.textContent('#blob-more')).toBe('show 100 more (9,900 not shown)');
    await o.page.click('#blob-more');
    expect(await o.page.$$eval('#blobs tr', (rows) => rows.length)).toBe(201);
    expect(await o.page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(12_000);
    expect(o.problems).toEqual([]);
  });

  it('follows the reader’s colour scheme: dark mode with readable contrast', async () => {
    const { root } = sampleProject('dark');
    const out = path.join(dir, 'dark.html');
    writeReport('agent-web', out, { root });
    const lum = (rgb: string): number => {
      const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number).map((c) => {
        const v = c! / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const contrast = (a: string, b: string): number => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x! + 0.05) / (y! + 0.05);
    };
    // One page for both schemes (a page costs more than a navigation), the scheme set before each load.
    const page = await browser.context.newPage();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`file://${out}`);
      await page.waitForSelector('html[data-verify-state="done"]');
      const colours = await page.evaluate(() => {
        const c = (sel: string, prop: 'color' | 'backgroundColor'): string =>
          getComputedStyle(document.querySelector(sel) as Element)[prop];
        return {
          bg: c('body', 'backgroundColor'),
          fg: c('body', 'color'),
          statusBg: c('#status', 'backgroundColor'),
          statusFg: c('#status-title', 'color'),
          dim: c('.dim', 'color'),
        };
      });
      if (scheme === 'dark') expect(lum(colours.bg)).toBeLessThan(0.05);
      else expect(lum(colours.bg)).toBeGreaterThan(0.9);
      expect(contrast(colours.fg, colours.bg)).toBeGreaterThan(7);
      expect(contrast(colours.statusFg, colours.statusBg)).toBeGreaterThan(4.5);
      expect(contrast(colours.dim, colours.bg)).toBeGreaterThan(4.5);
    }
    await page.close();
  });

  it('fits a 420-pixel-wide window: no hash or line overflows the page', async () => {
    const { root, file } = sampleProject('narrow');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('Fix it.', 'Fix it!');
    writeFileSync(file, lines.join('\n'));
    const out = path.join(dir, 'narrow.html');
    writeReport('agent-web', out, { root });
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 420, height: 800 });
    for (const state of ['tampered', 'intact']) {
      if (state === 'intact') {
        lines[2] = lines[2]!.replace('Fix it!', 'Fix it.');
        writeFileSync(file, lines.join('\n'));
        writeReport('agent-web', out, { root, force: true });
      }
      await page.goto(`file://${out}`);
      await page.waitForSelector('html[data-verify-state="done"]');
      await page.keyboard.press('End');
      const overflow = await page.evaluate(() => {
        const bad: string[] = [];
        if (document.documentElement.scrollWidth > 420) bad.push(`page ${document.documentElement.scrollWidth}px wide`);
        for (const e of Array.from(document.querySelectorAll('.hash, #status, #meta dd, h1, .faults li'))) {
          const r = e.getBoundingClientRect();
          if (r.right > 420.5 || e.scrollWidth > e.clientWidth + 1)
            bad.push(`${e.tagName}.${e.className}: ${e.textContent?.slice(0, 40)}`);
        }
        return bad;
      });
      expect(overflow).toEqual([]);
    }
    await page.close();
  });

  it('embeds a window of a long journal (--max-steps): verifies it, anchored to what the generator checked', async () => {
    const file = path.join(dir, 'windowed', '000000.jsonl');
    bigJournal(file, 300);
    const out = path.join(dir, 'windowed.html');
    const r = writeReport(file, out, { maxSteps: 100, fromStep: 150 });
    expect(r).toMatchObject({ ok: true, steps: 300, window: { first_line: 151, last_line: 250, steps: 100 } });
    let o = await open(out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'true', steps: '300' });
    expect(await o.page.textContent('#status-title')).toContain('steps 150–249 of 300 verified in this browser');
    expect(await o.page.textContent('#count')).toMatch(/^100 of 100 lines/);
    expect(await selectedLine(o)).toBe('151');

    // Damage outside the window: the generator's finding turns the page red, marked as such.
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[9] = lines[9]!.replace('"model":"model-x"', '"model":"model-y"');
    writeFileSync(file, lines.join('\n'));
    writeReport(file, out, { maxSteps: 100, force: true });
    o = await open(out);
    expect(await rootData(o.page)).toMatchObject({
      verified: 'false',
      firstFaultKind: 'step_hash_mismatch',
      firstFaultLine: '10',
    });
    expect(await o.page.textContent('#faults')).toContain('outside the embedded window: checked by the generator');

    // Damage inside the window: found by the page itself.
    lines[9] = lines[9]!.replace('"model":"model-y"', '"model":"model-x"');
    lines[279] = lines[279]!.replace('"model":"model-x"', '"model":"model-z"');
    writeFileSync(file, lines.join('\n'));
    writeReport(file, out, { maxSteps: 100, force: true });
    o = await open(out);
    expect(await rootData(o.page)).toMatchObject({ verified: 'false', firstFaultLine: '280', faultCount: '1' });
    expect(await o.page.textContent('#faults')).not.toContain('outside the embedded window');
    expect(await selectedLine(o)).toBe('280');
  });

  it('reads deep nesting as the CLI does: the same verdict below and above the depth limit', async () => {
    // The page parses and hashes with src/canonical and src/journal, so its depth limit is the CLI's.
    // Depths on both sides of it; the CLI's own verdict (dist/cli.js verify) is the reference.
    const verdicts = new Set<string>();
    for (const depth of [50, 900, 2500, 4097, 10000]) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const payload = `{"input_hash":"${ZERO_HASH}","model":"m","prev_hash":"${ZERO_HASH}","prompt":"deep","tool_call":${nested},"tool_result":null}`;
      const hash = createHash('sha256').update(payload).digest('hex');
      const line = `{"blob_refs":[],"input_hash":"${ZERO_HASH}","model":"m","prev_hash":"${ZERO_HASH}","prompt":"deep","seq":0,"step_hash":"${hash}","tool_call":${nested},"tool_result":null,"ts":1.0}`;
      const file = path.join(dir, `deep-${depth}.jsonl`);
      writeFileSync(file, `${line}\n`);
      const cli = spawnSync(process.execPath, [cliPath, 'verify', file, '--json'], { encoding: 'utf8' });
      expect(cli.stderr).not.toMatch(/internal error/);
      const cliView = JSON.parse(cli.stdout) as {
        ok: boolean;
        errors: { line: number; kind: string; message: string }[];
      };
      verdicts.add(cliView.ok ? 'ok' : cliView.errors.map((e) => e.kind).join());
      const out = path.join(dir, `deep-${depth}.html`);
      writeReport(file, out);
      const o = await open(out);
      expect(await rootData(o.page)).toMatchObject({ verified: String(cliView.ok) });
      const faults = await o.page.$$eval('#faults li', (lis) => lis.map((li) => li.textContent));
      expect(faults).toEqual(
        cliView.errors.map((e) => (e.line === null ? '' : `line ${e.line}: `) + `${e.kind}: ${e.message}`),
      );
      expect(o.problems).toEqual([]);
    }
    // Both sides were seen: rows that verify, and rows too deep to read (the only line, so no steps either).
    expect([...verdicts].sort()).toEqual(['malformed_json', 'ok']);
  });
});

describe('the Ed25519 signature checked in the page', () => {
  const signer = generateKeyPair();
  const other = generateKeyPair();
  let receipt: Buffer;
  beforeAll(() => {
    const { file } = sampleProject('sig');
    receipt = buildReceipt(file, { signKey: parsePrivateKey(Buffer.from(signer.privateKeyPem), 'signer.pem') }).bytes;
  });

  const reportOf = async (bytes: Buffer, name: string): Promise<import('playwright-core').Page> => {
    const tar = path.join(dir, `${name}.tar`);
    writeFileSync(tar, bytes);
    const out = path.join(dir, `${name}.html`);
    writeReport(tar, out);
    return (await open(out)).page;
  };
  const paste = async (page: import('playwright-core').Page, key: string): Promise<Record<string, string>> => {
    await page.fill('#public-key', key);
    await page.click('#check-signature');
    return rootData(page);
  };

  it('without a key: not green, says the signature is NOT checked; the signer’s pasted key makes it hold', async () => {
    const page = await reportOf(receipt, 'sig-nokey');
    expect(await rootData(page)).toMatchObject({
      verified: 'false',
      signature: 'not_checked',
      firstFaultKind: 'no_trusted_key',
    });
    expect(await page.getAttribute('#status', 'class')).toBe('status warn');
    expect(await page.textContent('#status-title')).toContain('signature was NOT checked');
    const pub = parsePublicKey(Buffer.from(signer.publicKeyPem), 'signer');
    expect(await paste(page, signer.publicKeyPem)).toMatchObject({
      pastedKey: 'holds',
      signature: 'verified',
      signatureKey: pub.keyId,
      verified: 'true',
    });
    expect(await page.textContent('#signature-result')).toContain(`holds under key ${pub.keyId}`);
    expect(await page.getAttribute('#status', 'class')).toBe('status ok');
    // The raw key as hex says the same.
    expect(await paste(page, pub.raw.toString('hex'))).toMatchObject({ pastedKey: 'holds' });
  });

  it('a wrong key: the page says the signature does NOT hold, and names the key', async () => {
    const page = await reportOf(receipt, 'sig-wrong');
    const wrong = parsePublicKey(Buffer.from(other.publicKeyPem), 'other');
    expect(await paste(page, other.publicKeyPem)).toMatchObject({ pastedKey: 'fails', signature: 'not_checked' });
    expect(await page.textContent('#signature-result')).toContain(`does NOT hold under key ${wrong.keyId}`);
    // The verdict and the signature row name the key that failed, never "no public key was given".
    expect(await page.textContent('#status-detail')).toContain(`does not hold under the pasted key ${wrong.keyId}`);
    expect(await page.textContent('#receipt')).toContain(`the pasted key ${wrong.keyId} does not hold`);
    expect(await page.textContent('#status-detail')).not.toContain('no public key was given');
    expect(await paste(page, signer.privateKeyPem)).toMatchObject({ pastedKey: 'bad_key' });
    expect(await page.textContent('#signature-result')).toContain('PRIVATE key');
  });

  it('a tampered manifest: the signer’s own key does NOT hold', async () => {
    // created_at one second later: still a canonical manifest that agrees with the chain, but not what was signed.
    const tampered = Buffer.from(receipt);
    const at = tampered.indexOf('"created_at":"') + '"created_at":"'.length + 18;
    tampered[at] = tampered[at] === 0x30 ? 0x31 : 0x30;
    const members = readTar(tampered);
    const page = await reportOf(
      writeTar(
        members.map((m) => ({ name: m.name, data: m.data })),
        0,
      ),
      'sig-tampered',
    );
    expect(await rootData(page)).toMatchObject({ verified: 'false', signature: 'not_checked' });
    expect(await paste(page, signer.publicKeyPem)).toMatchObject({ pastedKey: 'fails', signature: 'not_checked' });

    // With the signer's key given to the generator, the page itself checks it and shows it red.
    const tar = path.join(dir, 'sig-tampered-key.tar');
    writeFileSync(
      tar,
      writeTar(
        members.map((m) => ({ name: m.name, data: m.data })),
        0,
      ),
    );
    const out = path.join(dir, 'sig-tampered-key.html');
    expect(writeReport(tar, out, { publicKeys: [parsePublicKey(Buffer.from(signer.publicKeyPem), 'signer')] }).ok).toBe(
      false,
    );
    const o = await open(out);
    expect(await rootData(o.page)).toMatchObject({
      verified: 'false',
      signature: 'invalid',
      firstFaultKind: 'signature_invalid',
    });
  });
});

describe('the @sparticuz/chromium fallback', () => {
  it('runs the report page and the page verifies (the browser a machine without Chromium uses)', async () => {
    const choice = bundledChromium();
    expect(chromiumVersion(choice)).toMatch(/^Chromium \d+\./);
    const b = await launchBrowser(choice);
    try {
      const out = path.join(dir, 'bundled.html');
      writeReport(path.join(conformanceDir, 'reference-journal', '000000.jsonl'), out);
      const o = await openReport(b, out);
      expect(await rootData(o.page)).toMatchObject({ verified: 'true', steps: '5' });
      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
