import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { jsonDocument } from '../src/cli/io';
import { Cas, casDir, readJournalBytes, VerifiedSteps } from '../src/journal';
import {
  exportReceipt,
  inspectReceipt,
  publishReceipt,
  readPrivateKeyFile,
  readPublicKeyFile,
  redactedFields,
  writeKeyPair,
} from '../src/receipt';
import {
  BrokenChainError,
  diffJournals,
  diffSideLines,
  displayWidth,
  findStep,
  headerText,
  initialState,
  matchingSteps,
  nextMatch,
  openJournal,
  openReplay,
  parseKeys,
  reduce,
  renderScreen,
  replayDocument,
  showDocument,
  showLines,
  sourceSignature,
  stepBody,
  stepChanges,
  stepTable,
  wrap,
  type Key,
  type ReplaySource,
  type ReplayState,
} from '../src/replay';
import { record, replayProject, SAMPLE } from './helpers/replay-fixture';

const root = replayProject();
const file = record(root, 'agent-demo');
const source = openJournal('agent-demo', { root, cwd: root });
const size = { width: 80, height: 24 };
const r2 = replayProject();

function press(
  state: ReplayState,
  keys: string,
  src: ReplaySource = source,
): { state: ReplayState; actions: string[] } {
  const actions: string[] = [];
  for (const k of parseKeys(keys)) {
    const r = reduce(state, k, src, size);
    state = r.state;
    if (r.action) actions.push(r.action);
  }
  return { state, actions };
}
const screenText = (state: ReplayState, s = size, src: ReplaySource = source): string =>
  renderScreen(src, state, s)
    .map((l) => l.text)
    .join('\n');

describe('opening a journal for display', () => {
  test('verifies the chain and keeps every entry', () => {
    expect(source.steps).toBe(5);
    expect(source.agentId).toBe('agent-demo');
    expect(source.entries.slice().map((e) => e.row.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(source.projectRoot).toBe(root);
  });

  test('a tampered chain is refused with every fault as file:line: kind: message', () => {
    const dir = path.join(root, 'tampered');
    mkdirSync(dir, { recursive: true });
    const bad = path.join(dir, '000000.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('Fix the bug', 'Fix THE bug');
    lines[3] = lines[3]!.replace('"seq":3', '"seq":7');
    writeFileSync(bad, lines.join('\n'));
    let err: unknown;
    try {
      openJournal(bad, { root });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BrokenChainError);
    const faults = (err as BrokenChainError).faults;
    expect(faults).toContain(
      `${bad}:3: step_hash_mismatch: ${faults
        .find((f) => f.startsWith(`${bad}:3: step_hash_mismatch`))!
        .split(': ')
        .slice(2)
        .join(': ')}`,
    );
    expect(faults.some((f) => f.startsWith(`${bad}:4: seq_mismatch:`))).toBe(true);
    expect((err as BrokenChainError).exitCode).toBe(1);
  });
});

describe('step model', () => {
  test('changes since the previous step are listed field by field, into objects', () => {
    const e = source.entries.slice();
    expect(stepChanges(undefined, e[0]!.row)).toEqual([]);
    const c = stepChanges(e[1]!.row, e[2]!.row);
    const paths = c.map((x) => `${x.kind} ${x.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'changed model',
        'changed prompt',
        'changed tool_call.name',
        'added tool_call.args.old',
        'added tool_call.args.new',
        'removed tool_result.content',
        'added tool_result.ok',
        'changed blob_refs',
        'changed input_hash',
      ]),
    );
    expect(paths).not.toContain('changed tool_call.args.path'); // same path on both steps
  });

  test('search finds steps by any field, case-insensitively, wrapping around', () => {
    expect(matchingSteps(source.entries, 'PYTEST')).toEqual([0, 3]);
    expect(findStep(source.entries, 'pytest', 0)).toBe(3);
    expect(findStep(source.entries, 'pytest', 3)).toBe(0);
    expect(findStep(source.entries, 'pytest', 3, -1)).toBe(0);
    expect(findStep(source.entries, 'no such text', 0)).toBe(-1);
    expect(findStep(source.entries, source.entries.at(2)!.row.step_hash.slice(0, 10), 0)).toBe(2);
  });

  test('the next match among those found is the one a scan from the step shown finds (wrapping, itself last)', () => {
    // The scan order findStep had before matches were kept: after `from`, around, `from` itself last.
    const scan = (hits: boolean[], from: number, dir: 1 | -1): number => {
      for (let k = 1; k <= hits.length; k++) {
        const i = (((from + dir * k) % hits.length) + hits.length) % hits.length;
        if (hits[i]) return i;
      }
      return -1;
    };
    fc.assert(
      fc.property(
        fc
          .array(fc.boolean(), { minLength: 1, maxLength: 30 })
          .chain((hits) => fc.tuple(fc.constant(hits), fc.nat(hits.length - 1), fc.constantFrom<1 | -1>(1, -1))),
        ([hits, from, dir]) => {
          const matches = hits.flatMap((h, i) => (h ? [i] : []));
          expect(nextMatch(matches, from, dir)).toBe(scan(hits, from, dir));
        },
      ),
      { numRuns: 500, seed: 1206 },
    );
  });

  test('a search reads the steps once: the next and previous matches come from what it found', () => {
    let reads = 0;
    const counted: ReplaySource = {
      ...source,
      entries: {
        length: source.entries.length,
        at: (i: number) => (reads++, source.entries.at(i)),
        slice: (a?: number, b?: number) => source.entries.slice(a, b),
      },
    };
    let { state } = press(initialState(), '/pytest\r', counted);
    expect(state.index).toBe(3);
    expect(state.message).toContain('match 2 of 2');
    expect(reads).toBe(5);
    ({ state } = press(state, '/\r', counted)); // the same search again: the next match, wrapped
    expect(state.index).toBe(0);
    ({ state } = press(state, 'N', counted));
    expect(state.index).toBe(3);
    ({ state } = press(state, 'N', counted));
    expect(state.index).toBe(0);
    expect(reads).toBe(5);
    // Another query is another search.
    press(state, '/ruff\r', counted);
    expect(reads).toBe(10);
  });
});

describe('keys and state', () => {
  test('raw input splits into keys, arrows included', () => {
    const kinds = parseKeys('n\x1b[C\x1b[D\x1bOA12\r/\x7f\x1b').map((k: Key) => (k.kind === 'char' ? k.char : k.kind));
    expect(kinds).toEqual(['n', 'right', 'left', 'up', '1', '2', 'enter', '/', 'backspace', 'escape']);
  });

  test('next, previous, first, last stay in range', () => {
    let s = initialState();
    s = press(s, 'p').state;
    expect(s.index).toBe(0);
    expect(s.message).toMatch(/first step/);
    s = press(s, 'nn\x1b[C').state;
    expect(s.index).toBe(3);
    s = press(s, '\x1b[D').state;
    expect(s.index).toBe(2);
    s = press(s, 'G').state;
    expect(s.index).toBe(4);
    s = press(s, 'n').state;
    expect(s.index).toBe(4);
    expect(s.message).toMatch(/last step/);
    s = press(s, 'g').state;
    expect(s.index).toBe(0);
  });

  test('digits then Enter jump to a seq; out of range says so', () => {
    let s = press(initialState(), '3').state;
    expect(s.mode).toBe('jump');
    expect(screenText(s)).toMatch(/jump to seq \(0\.\.4\): 3/);
    s = press(s, '\r').state;
    expect(s.index).toBe(3);
    s = press(s, '99\r').state;
    expect(s.index).toBe(3);
    expect(s.message).toMatch(/no step 99: seqs are 0\.\.4/);
    s = press(s, '2\x1b').state;
    expect(s.index).toBe(3);
    expect(s.mode).toBe('normal');
  });

  test('/ searches, / Enter repeats, N goes back', () => {
    let s = press(initialState(), '/pytest\r').state;
    expect(s.index).toBe(3);
    expect(s.message).toMatch(/match 2 of 2/);
    s = press(s, '/\r').state;
    expect(s.index).toBe(0);
    expect(s.message).toMatch(/wrapped/);
    s = press(s, 'N').state;
    expect(s.index).toBe(3);
    s = press(s, '/zzz-none\r').state;
    expect(s.index).toBe(3);
    expect(s.message).toMatch(/no step matches "zzz-none"/);
  });

  test('q quits, f asks for a fork of the current step, Ctrl-C quits', () => {
    expect(press(initialState(), 'q').actions).toEqual(['quit']);
    expect(press(initialState(), '\x03').actions).toEqual(['quit']);
    const asked = press(initialState(), 'nnf');
    expect(asked.actions).toEqual([]);
    expect(asked.state.mode).toBe('confirm-fork');
    expect(renderScreen(source, asked.state, size).at(-1)!.text).toContain('fork the run at step 2');
    const r = press(asked.state, 'y');
    expect(r.actions).toEqual(['fork']);
    expect(r.state.index).toBe(2);
    expect(press(asked.state, 'n').state.message).toBe('fork cancelled: nothing was created');
    expect(press(asked.state, 'n').actions).toEqual([]);
  });
});

describe('screen layout', () => {
  test('exactly height lines of width columns, header step N / M with head and status', () => {
    for (const sz of [size, { width: 40, height: 10 }, { width: 132, height: 50 }, { width: 20, height: 3 }]) {
      for (let i = 0; i < source.steps; i++) {
        const lines = renderScreen(source, { ...initialState(), index: i }, sz);
        expect(lines).toHaveLength(sz.height);
        for (const l of lines) expect(displayWidth(l.text)).toBe(sz.width);
      }
    }
    const top = screenText({ ...initialState(), index: 3 }).split('\n')[0]!;
    expect(top).toContain('step 4 / 5');
    expect(top).toContain(source.head_hash.slice(0, 12));
    expect(top).toContain('verified');
  });

  test('the body shows model, prompt, tool call, result, blobs, hashes, time and changes', () => {
    const t = screenText({ ...initialState(), index: 1 }, { width: 100, height: 40 });
    for (const want of [
      'model       model-a',
      'prompt      Read the implementation of add().',
      'tool_call   {"args":{"path":"src/calc.py"},"name":"read_file"}',
      'tool_result {',
      '              "content": |',
      '                    return a - b',
      'input       ',
      '29 B  attachment: calc.py contents',
      `step_hash   ${source.entries.at(1)!.row.step_hash}`,
      `prev_hash   ${source.entries.at(0)!.row.step_hash}`,
      'time        2023-11-14T22:13:21.250Z',
      'changed since step 0:',
      '~ tool_call.name: "run" → "read_file"',
    ]) {
      if (want === 'input       ') expect(t).toMatch(/[0-9a-f]{16}… input {2}12 B {2}user turn 1/);
      else expect(t).toContain(want);
    }
  });

  test('a long field is cut with a marker, Enter expands it, the rule shows the scroll position', () => {
    let s = press(initialState(), 'G').state;
    let t = screenText(s);
    expect(t).toContain('line 2 of a long summary');
    expect(t).not.toContain('line 29 of a long summary');
    expect(t).toMatch(/… \d+ more lines \(Enter expands\)/);
    s = press(s, '\r').state;
    expect(s.expanded).toBe(true);
    const body = stepBody(source, 4, { width: 80, expanded: true })
      .lines.map((l) => l.text)
      .join('\n');
    expect(body).toContain('line 29 of a long summary');
    t = screenText(s);
    expect(t).toMatch(/lines 1-21 of \d+ \(↑↓ scroll\)/);
    s = press(s, '\x1b[6~').state;
    expect(screenText(s)).toContain('line 29 of a long summary');
  });

  test('wide characters are counted in columns', () => {
    const t = renderScreen(source, { ...initialState(), index: 4 }, { width: 30, height: 20 });
    for (const l of t) expect(displayWidth(l.text)).toBe(30);
    expect(t.map((l) => l.text).join('\n')).toContain('日本');
  });

  test('escape sequences in a row never reach the screen', () => {
    record(r2, 'evil', [
      { model: 'm\x1b[2J', prompt: 'hi\x1b]0;owned\x07\u009b31m', tool_result: { x: '\x1b[31mred' } },
      { prompt: 'two' },
    ]);
    const evil = openJournal('evil', { root: r2 });
    for (let i = 0; i < 2; i++) {
      const t = renderScreen(evil, { ...initialState(), index: i }, size)
        .map((l) => l.text)
        .join('\n');
      expect(t).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    }
    expect(stepTable(evil).join('\n')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(
      renderScreen(evil, initialState(), size)
        .map((l) => l.text)
        .join('\n'),
    ).toContain('hi\\x1b]0;owned\\x07\\x9b31m');
  });
});

describe('non-interactive views', () => {
  test('the table lists seq, time, model, tool, short step hash and prompt; --limit cuts it', () => {
    const t = stepTable(source);
    expect(t[0]).toContain(`agent-demo: 5 steps, head ${source.head_hash}, chain verified`);
    expect(t[2]).toMatch(/^seq +time \(UTC\) +model +tool +step +prompt$/);
    expect(t[3]).toMatch(
      new RegExp(
        `^  0  2023-11-14 22:13:20 +model-a +run +${source.entries.at(0)!.row.step_hash.slice(0, 12)}  The test suite fails`,
      ),
    );
    expect(t[7]).toMatch(/^ {2}4 .* model-b {2,}( {4}) {2,}[0-9a-f]{12} {2}Summarise the change\. Résumé ✓ 日本語$/);
    const limited = stepTable(source, 2, '--limit'); // as the CLI words its limit
    expect(limited).toHaveLength(3 + 2 + 1);
    expect(limited.at(-1)).toBe('… 3 more steps (--limit 2)');
  });

  test('--json rows are exactly the stored lines', () => {
    const doc = replayDocument(source);
    expect(doc.agent_id).toBe('agent-demo');
    expect(doc.steps).toBe(5);
    expect(doc.head_hash).toBe(source.head_hash);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(doc.entries.map((r) => jsonDocument(r))).toEqual(lines);
    expect(lines[3]).toContain('"big":123456789012345678901234567890');
    expect(lines[2]).toContain('"ratio":1.0');
    expect(replayDocument(source, 1).entries).toHaveLength(1);
    expect(replayDocument(source, 1).steps).toBe(5);
  });

  test('show: blobs with sizes and previews; a missing blob is marked', () => {
    const d = showDocument(source, 1);
    expect(d.seq).toBe(1);
    expect(d.line).toBe(2);
    expect(d.blobs).toHaveLength(2);
    const input = d.blobs.find((b) => b.input)!;
    expect(input).toMatchObject({ present: true, size: 12, preview: 'user turn 1\n', binary: false });
    const extra = d.blobs.find((b) => !b.input)!;
    const cas = new Cas(casDir(root), false);
    copyFileSync(cas.pathOf(extra.digest), path.join(root, 'saved-blob'));
    rmSync(cas.pathOf(extra.digest));
    const again = openJournal('agent-demo', { root });
    expect(showDocument(again, 1).blobs.find((b) => !b.input)).toMatchObject({
      present: false,
      size: null,
      preview: null,
    });
    copyFileSync(path.join(root, 'saved-blob'), cas.pathOf(extra.digest));
    expect(() => showDocument(source, 5)).toThrow(/step 5 is out of range \(the journal has 5 steps, 0\.\.4\)/);
  });
});

describe('diff', () => {
  test('a receipt side names its signature\'s state in words of its own, never a bare "verified"', () => {
    const side = { verified: true, steps: 2, head_hash: 'ab'.repeat(32), errors: [] };
    const line = (status: string, holds: boolean): string =>
      diffSideLines(
        { ...side, signature: { status, holds } } as unknown as Parameters<typeof diffSideLines>[0],
        'left',
        'r.tar',
      )[0]!;
    expect(line('verified', true)).toMatch(/chain verified, 2 steps, head (ab){32}, signature verified$/);
    expect(line('not_checked', false)).toMatch(/, signature NOT checked$/);
    expect(line('invalid', false)).toMatch(/, signature INVALID$/);
    expect(line('unsigned', true)).toMatch(/, unsigned$/);
  });

  test('same, diverged at a field, and length mismatch', () => {
    record(
      r2,
      'same',
      SAMPLE.map((s) => ({ ...s, ts: 42.5 })),
    );
    const same = openJournal('same', { root: r2 });
    expect(diffJournals(source, same)).toMatchObject({
      diverged: false,
      reason: null,
      seq: null,
      left_steps: 5,
      right_steps: 5,
    });

    const changed = SAMPLE.map((s, i) => (i === 3 ? { ...s, tool_result: { exit_code: 1 }, model: 'model-c' } : s));
    record(r2, 'changed', changed);
    const d = diffJournals(source, openJournal('changed', { root: r2 }));
    expect(d).toMatchObject({
      diverged: true,
      reason: 'step_mismatch',
      seq: 3,
      fields_changed: ['model', 'tool_result'],
    });
    expect(jsonDocument(d.left)).toBe(readFileSync(file, 'utf8').split('\n')[3]);

    record(r2, 'short', SAMPLE.slice(0, 3));
    const l = diffJournals(source, openJournal('short', { root: r2 }));
    expect(l).toMatchObject({
      diverged: true,
      reason: 'length_mismatch',
      seq: 3,
      left_steps: 5,
      right_steps: 3,
      right: null,
    });
  });
});

describe('footer', () => {
  test('key hints keep q quit and the most important keys on a narrow screen', () => {
    const wide = renderScreen(source, initialState(), { width: 120, height: 10 }).at(-1)!.text.trimEnd();
    expect(wide).toBe(
      'n/→ next  p/← prev  g/G first/last  seq⏎ jump  / search  ⏎ expand  ↑↓ scroll  f fork  ? keys  q quit',
    );
    // `? keys` stays however narrow: it is how every other key is found.
    const narrow = renderScreen(source, initialState(), { width: 40, height: 10 }).at(-1)!.text.trimEnd();
    expect(narrow).toBe('n/→ next  p/← prev  ? keys  q quit');
    const sixty = renderScreen(source, initialState(), { width: 60, height: 10 }).at(-1)!.text.trimEnd();
    expect(sixty).toBe('n/→ next  p/← prev  g/G first/last  / search  ? keys  q quit');
    const keysShown = press(initialState(), '?').state;
    expect(keysShown.panel).not.toBeNull();
    const panel = renderScreen(source, keysShown, { width: 80, height: 24 }).map((l) => l.text.trimEnd());
    for (const k of ['n  →  l', 'p  ←  h', 'g  Home', 'G  End', '/text ⏎', 'N ', 'f ', 'q  Ctrl-C'])
      expect(panel.some((l) => l.trimStart().startsWith(k))).toBe(true);
    expect(press(keysShown, 'x').state.panel).toBeNull();
    // At 60 columns a long description wraps under its own column, never back at the left edge.
    const narrowPanel = renderScreen(source, keysShown, { width: 60, height: 40 }).map((l) => l.text.trimEnd());
    const search = narrowPanel.findIndex((l) => l.startsWith('  /text ⏎'));
    expect(narrowPanel[search]).toBe('  /text ⏎         search every field and hash');
    expect(narrowPanel[search + 1]).toBe(`${' '.repeat(18)}(case-insensitive, wraps around)`);
    for (const l of narrowPanel.slice(4, -1)) if (l !== '') expect(l.startsWith('  ')).toBe(true);
  });

  test('the fork question keeps its answer keys at any width', () => {
    const asking = { ...press(initialState(), 'n').state, mode: 'confirm-fork' as const };
    for (const width of [30, 45, 60, 100]) {
      const footer = renderScreen(source, asking, { width, height: 10 }).at(-1)!.text.trimEnd();
      expect(footer).toMatch(/^fork .*at step 1.*\? y\/N$/);
    }
    expect(renderScreen(source, asking, { width: 100, height: 10 }).at(-1)!.text.trimEnd()).toBe(
      'fork the run at step 1 into a new git worktree and branch? y/N',
    );
  });
});

describe('large fields', () => {
  test('a value with 200,000 lines and a 3 MB prompt lay out (cut, then expanded and scrolled)', () => {
    record(r2, 'big', [
      { prompt: 'x'.repeat(3_000_000), tool_result: { out: 'y\n'.repeat(200_000) } },
      { prompt: 'small' },
    ]);
    const big = openJournal('big', { root: r2 });
    const cut = renderScreen(big, initialState(), size)
      .map((l) => l.text)
      .join('\n');
    expect(cut).toMatch(/… \d+ more lines \(Enter expands\)/);
    let s = press(initialState(), '\r', big).state;
    s = press(s, '\x1b[6~\x1b[6~j', big).state;
    const lines = renderScreen(big, s, size);
    expect(lines).toHaveLength(size.height);
    expect(lines[1]!.text).toMatch(/lines 44-64 of 2\d{5} /);
    expect(showLines(big, 1).join('\n')).toContain('prompt      small');
    expect(stepTable(big)[3]).toMatch(/x{59}…$/);
  });
});

describe('header, wrap and widths', () => {
  test('at 60 columns the header keeps the step and the chain status, even at seq 149,999 of 150,000', () => {
    const many = { ...source, steps: 150_000 };
    for (const width of [40, 60, 160]) {
      const text = headerText(many, { ...initialState(), index: 149_999 }, width);
      expect(text).toContain('step 150000 / 150000');
      expect(text).toContain('chain ✓ verified');
      if (width >= 60) expect(displayWidth(text)).toBeLessThanOrEqual(width);
    }
    expect(headerText(many, initialState(), 160)).toMatch(
      /seq 0 {2}head [0-9a-f]{12} {2}chain ✓ verified {2}agent-demo$/,
    );
  });

  test('a signed receipt opened without a key: header in the warning style, "signature NOT checked", f not offered', () => {
    const dir = path.join(r2, 'keys');
    mkdirSync(dir, { recursive: true });
    const pair = writeKeyPair(path.join(dir, 'k.pem'), path.join(dir, 'k.pub'));
    expect(pair.keyId).toMatch(/^[0-9a-f]{16}$/);
    const receipt = path.join(r2, 'signed.receipt.tar');
    exportReceipt(file, receipt, { signKey: readPrivateKeyFile(path.join(dir, 'k.pem')) });
    const src = openReplay(receipt, { cwd: r2 });
    const lines = renderScreen(src, initialState(0, { canFork: false }), { width: 100, height: 12 });
    expect(lines[0]!.style).toBe('header-warn');
    expect(lines[0]!.text).toContain('signature NOT checked');
    expect(lines.at(-1)!.text).not.toContain('f fork');
    expect(sourceSignature(src)).toMatchObject({ status: 'not_checked', holds: false });
    const checked = openReplay(receipt, { cwd: r2, publicKeys: [readPublicKeyFile(path.join(dir, 'k.pub'))] });
    expect(renderScreen(checked, initialState(), size)[0]!.style).toBe('header');
    expect(sourceSignature(checked)).toMatchObject({ status: 'verified', holds: true });
  });

  test("a receipt's steps are read from its bytes a block at a time, each the whole read's; published is the walk's", () => {
    // openReceipt parsed every row up front (a 100,000-step receipt's `show` of one step: 7.5 s, 800 MB); it now
    // reads the member where it lies, as a journal file is read, and takes `redacted` from the receipt's walk.
    for (const kind of ['export', 'publish'] as const) {
      const receipt = path.join(r2, `${kind}.receipt.tar`);
      if (kind === 'export') exportReceipt(file, receipt);
      else publishReceipt(file, receipt, { optIn: true });
      const src = openReplay(receipt, { cwd: r2 });
      expect(src.entries).toBeInstanceOf(VerifiedSteps);
      const whole = readJournalBytes(inspectReceipt(receipt).receipt!.journal);
      expect([src.steps, src.head_hash]).toEqual([whole.steps, whole.head_hash]);
      expect(src.entries.slice()).toEqual(whole.entries);
      for (const seq of [0, whole.steps - 1]) expect(src.entries.at(seq)).toEqual(whole.entries[seq]);
      expect(src.redacted).toBe(kind === 'publish');
      expect(src.redacted).toBe(redactedFields(whole.entries.map((e) => e.row)).length > 0);
    }
  });

  test('wrap breaks between words, cuts only a word longer than a line, counts emoji and CJK as two columns', () => {
    expect(wrap('the quick brown fox jumps over the lazy dog', 10)).toEqual([
      'the quick',
      'brown fox',
      'jumps over',
      'the lazy',
      'dog',
    ]);
    expect(wrap(`sha ${'a'.repeat(20)} end`, 8)).toEqual(['sha', 'aaaaaaaa', 'aaaaaaaa', 'aaaa end']);
    expect(displayWidth('🚀✅')).toBe(4);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('e\u0301')).toBe(1); // a combining accent takes no column
    expect(displayWidth('a\u200db')).toBe(2); // nor a zero-width joiner
    expect(wrap('🚀 🚀 🚀', 5)).toEqual(['🚀 🚀', '🚀']);
  });
});
