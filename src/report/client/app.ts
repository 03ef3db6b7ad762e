import type { PageEntry, PageFault, PageRuntime, PageValue, PageVerifyResult } from './runtime';

/**
 * The report page's user interface, as ONE self-contained function: like
 * `clientRuntime`, it references nothing outside its body, so its source
 * (`clientApp.toString()`) is the page script. It reads the embedded data,
 * verifies the chain in chunks (yielding to the browser between them), renders a
 * virtual step list, the step detail, blobs and the fork tree, and sets the root
 * element's `data-verified` when done. All text goes in with `textContent`: the
 * journal is untrusted input.
 */

/** The JSON document embedded in the page (`<script type="application/json" id="stepchain-data">`). */
export interface ReportData {
  format: 1;
  generator: string;
  generated_at: string;
  title: string;
  agent_id: string;
  source: { kind: 'journal' | 'receipt'; path: string };
  /** The journal file's exact bytes, base64. */
  journal_b64: string;
  /** The head the chain must end at (a receipt's manifest head), or null. */
  expected_head: string | null;
  /** What the generator's own verification (src/journal) found, for comparison. */
  generator_verify: PageVerifyResult;
  receipt: ReportReceiptInfo | null;
  blobs: ReportBlob[];
  blob_caps: { per_blob: number; total: number };
  forks: ReportForkNode | null;
}

export interface ReportReceiptInfo {
  /** manifest.json's text (canonical JSON, ASCII). */
  manifest_text: string;
  signed: boolean;
  key_id: string | null;
  /** What the generator checked about the signature, in words. */
  signature_check: string;
  /** Receipt-level problems the generator found (signature, manifest vs chain, structure). */
  generator_faults: PageFault[];
}

export interface ReportBlob {
  digest: string;
  /** Size in bytes, or null when the blob was not found. */
  size: number | null;
  /** The bytes, base64, when embedded. */
  b64?: string;
  /** Why the bytes are not embedded (not found, over the cap). */
  skipped?: string;
}

/** One node of a fork tree (the root is the run itself). */
export interface ReportForkNode {
  id: string;
  label?: string | null;
  branch?: string | null;
  from_step?: number | null;
  parent_step_hash?: string | null;
  /** Steps recorded in the fork after it was made, whether its journal verifies, whether its worktree is gone. */
  steps_since?: number | null;
  journal_ok?: boolean | null;
  missing?: boolean;
  /** True for the run this report is about. */
  current?: boolean;
  children: ReportForkNode[];
}

export function clientApp(rt: PageRuntime, doc: Document): void {
  const root = doc.documentElement;
  const $ = (id: string): HTMLElement => {
    const el = doc.getElementById(id);
    if (el === null) throw new Error(`page element #${id} is missing`);
    return el;
  };
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] => {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const fmtInt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fmtSize = (n: number): string =>
    n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;

  const fail = (kind: string, message: string): void => {
    root.setAttribute('data-verify-state', 'done');
    root.setAttribute('data-verified', 'false');
    root.setAttribute('data-first-fault-kind', kind);
    const status = doc.getElementById('status');
    if (status) {
      status.className = 'status bad';
      const t = doc.getElementById('status-title');
      if (t) t.textContent = '✗ NOT VERIFIED: the report could not check this chain';
      const d = doc.getElementById('status-detail');
      if (d) d.textContent = message;
    }
  };

  let data: ReportData;
  try {
    data = JSON.parse($('stepchain-data').textContent ?? '') as ReportData;
  } catch (e) {
    fail('report_error', `embedded data unreadable: ${(e as Error).message}`);
    return;
  }

  // ---- header ----
  const meta = $('meta');
  const metaRow = (k: string, v: string, cls?: string): HTMLElement => {
    const dt = el('dt', undefined, k);
    const dd = el('dd', cls, v);
    meta.append(dt, dd);
    return dd;
  };
  metaRow('Agent', data.agent_id);
  metaRow('Source', `${data.source.kind === 'receipt' ? 'receipt' : 'journal'} ${data.source.path}`);
  const stepsDd = metaRow('Steps', '…');
  const headDd = metaRow('Head hash', '…', 'hash');
  metaRow('Generated', `${data.generated_at} by ${data.generator}`);
  const gv = data.generator_verify;
  metaRow(
    'Generator check',
    gv.ok
      ? `intact (${fmtInt(gv.steps)} steps, head ${gv.head_hash.slice(0, 16)}…)`
      : `${gv.errors.length} fault(s): first ${gv.errors[0]?.kind ?? ''} at line ${gv.errors[0]?.line ?? '-'}`,
  );

  if (data.receipt !== null) {
    const r = data.receipt;
    const sec = $('receipt');
    sec.hidden = false;
    const dl = el('dl', 'meta');
    const add = (k: string, v: string, cls?: string): void => {
      dl.append(el('dt', undefined, k), el('dd', cls, v));
    };
    add(
      'Signature',
      r.signed ? `signed${r.key_id ? `, key id ${r.key_id}` : ''}` : 'unsigned',
      r.signed ? undefined : 'warn',
    );
    add(
      'Signature check',
      r.signature_check,
      /NOT checked|FAILED|unsigned, but/.test(r.signature_check) ? 'warn' : undefined,
    );
    add('Expected head', data.expected_head ?? '(none)', 'hash');
    if (r.generator_faults.length > 0)
      add('Receipt problems', r.generator_faults.map((f) => `${f.kind}: ${f.message}`).join('\n'), 'badtext');
    sec.append(dl);
    const det = el('details');
    det.append(el('summary', undefined, 'manifest.json'));
    let manifestShown = r.manifest_text;
    try {
      manifestShown = rt.display(rt.parseJson(r.manifest_text));
    } catch {
      /* shown raw */
    }
    det.append(el('pre', 'code', manifestShown));
    sec.append(det);
    sec.append(
      el(
        'p',
        'note',
        'Checked in this browser: the chain (every step hash, link and seq), that it ends at the manifest head, and the bundled blobs\u2019 digests. ' +
          'Checked by the generator only: the manifest signature (Ed25519 is not re-checked here), the archive structure and blob_digests.',
      ),
    );
  }

  // ---- verification state ----
  const journal = rt.base64Bytes(data.journal_b64);
  const verifier = rt.createVerifier(journal, data.expected_head);
  const entries = verifier.entries;
  const blobFaults: PageFault[] = [];
  let verified: PageVerifyResult | null = null;

  // ---- list (virtual: only the visible rows exist in the DOM) ----
  const ROW_H = 26;
  const list = $('list');
  const spacer = $('list-spacer');
  const search = $('search') as HTMLInputElement;
  const onlyFaults = $('only-faults') as HTMLInputElement;
  const countEl = $('count');
  let view: number[] = [];
  let sel = -1; // index into view
  let filterText = '';
  /** Set once the reader moves the selection: verification must not take it away afterwards. */
  let userMoved = false;
  const hay: (string | undefined)[] = [];

  const fieldText = (v: PageValue | undefined): string =>
    v === undefined ? '' : typeof v === 'string' ? v : rt.display(v, 0);
  const haystack = (i: number): string => {
    let h = hay[i];
    if (h === undefined) {
      const e = entries[i] as PageEntry;
      const r = e.row;
      h = (
        r === null
          ? `line ${e.line} ${e.text}`
          : `#${String(r.get('seq'))} ${fieldText(r.get('model'))} ${fieldText(r.get('prompt'))} ${fieldText(r.get('tool_call'))} ${fieldText(r.get('tool_result'))} ${String(r.get('step_hash'))}`
      ).toLowerCase();
      hay[i] = h;
    }
    return h;
  };
  const matches = (i: number): boolean => {
    const e = entries[i] as PageEntry;
    if (onlyFaults.checked && e.faults.length === 0) return false;
    return filterText === '' || haystack(i).includes(filterText);
  };
  const rebuildView = (): void => {
    const current = sel >= 0 ? view[sel] : undefined;
    view = [];
    for (let i = 0; i < entries.length; i++) if (matches(i)) view.push(i);
    sel = current === undefined ? (view.length > 0 ? 0 : -1) : view.indexOf(current);
    if (sel < 0 && view.length > 0) sel = 0;
    renderList(true);
    renderDetail();
  };
  const extendView = (from: number): void => {
    for (let i = from; i < entries.length; i++) if (matches(i)) view.push(i);
    if (sel < 0 && view.length > 0) {
      sel = 0;
      renderDetail();
    }
  };

  const labelOf = (e: PageEntry): { n: string; text: string } => {
    const r = e.row;
    if (r === null) return { n: `L${e.line}`, text: `malformed line: ${e.text.slice(0, 80)}` };
    const call = r.get('tool_call');
    const tool = call instanceof Map && typeof call.get('name') === 'string' ? `${call.get('name') as string} · ` : '';
    const prompt = r.get('prompt');
    const p = typeof prompt === 'string' ? prompt : prompt === null ? '' : rt.display(prompt as PageValue, 0);
    return { n: `#${String(r.get('seq'))}`, text: `${tool}${p.slice(0, 120)}` };
  };

  let rendered = new Map<number, HTMLElement>();
  const renderList = (force = false): void => {
    spacer.style.height = `${view.length * ROW_H}px`;
    const top = list.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_H) - 10);
    const last = Math.min(view.length, Math.ceil((top + list.clientHeight) / ROW_H) + 10);
    const next = new Map<number, HTMLElement>();
    for (let v = first; v < last; v++) {
      const idx = view[v] as number;
      let row = force ? undefined : rendered.get(v);
      if (row !== undefined && row.dataset.entry !== String(idx)) row = undefined;
      if (row === undefined) {
        const e = entries[idx] as PageEntry;
        row = el('div', 'item');
        row.dataset.entry = String(idx);
        row.dataset.view = String(v);
        row.style.top = `${v * ROW_H}px`;
        const { n, text } = labelOf(e);
        row.append(el('span', 'n', n), el('span', 'mark', e.faults.length > 0 ? '✗' : '✓'), el('span', 'label', text));
        if (e.faults.length > 0) row.classList.add('faulty');
        rendered.delete(v);
      }
      row.classList.toggle('selected', v === sel);
      row.setAttribute('aria-selected', v === sel ? 'true' : 'false');
      next.set(v, row);
    }
    for (const [, old] of rendered) old.remove();
    for (const [, r] of next) if (r.parentNode !== spacer) spacer.append(r);
    rendered = next;
    countEl.textContent = `${fmtInt(view.length)} of ${fmtInt(verifier.total)} lines${entries.length < verifier.total ? ' (verifying…)' : ''}`;
  };
  list.addEventListener('scroll', () => renderList());
  list.addEventListener('click', (ev) => {
    const item = (ev.target as HTMLElement).closest('.item') as HTMLElement | null;
    if (item?.dataset.view !== undefined) {
      userMoved = true;
      select(Number(item.dataset.view));
    }
  });

  const scrollIntoView = (): void => {
    if (sel < 0) return;
    const y = sel * ROW_H;
    if (y < list.scrollTop) list.scrollTop = y;
    else if (y + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = y + ROW_H - list.clientHeight;
  };
  const select = (v: number): void => {
    if (view.length === 0) return;
    sel = Math.max(0, Math.min(view.length - 1, v));
    scrollIntoView();
    renderList();
    renderDetail();
  };
  const jumpToLine = (line: number): void => {
    if (filterText !== '' || onlyFaults.checked) {
      search.value = '';
      filterText = '';
      onlyFaults.checked = false;
      rebuildView();
    }
    const v = view.indexOf(line - 1);
    if (v >= 0) select(v);
  };

  // ---- detail ----
  const detail = $('detail');
  const MAX_SHOWN = 200000;
  const pre = (s: string): HTMLElement => {
    const p = el('pre', 'code');
    if (s.length > MAX_SHOWN) {
      p.textContent = s.slice(0, MAX_SHOWN);
      const more = el('button', 'more', `show all ${fmtInt(s.length)} characters`);
      more.addEventListener('click', () => {
        p.textContent = s;
      });
      const box = el('div');
      box.append(p, more);
      return box;
    }
    p.textContent = s;
    return p;
  };
  const blobByDigest = new Map<string, ReportBlob>();
  for (const b of data.blobs) blobByDigest.set(b.digest, b);

  const renderDetail = (): void => {
    detail.textContent = '';
    if (sel < 0 || view.length === 0) {
      const why =
        verifier.total === 0
          ? 'The journal has no lines.'
          : entries.length === 0
            ? 'Verifying…'
            : 'No step matches the search.';
      detail.append(el('p', 'note', why));
      return;
    }
    const idx = view[sel] as number;
    const e = entries[idx] as PageEntry;
    const r = e.row;
    const h = el('h2');
    h.append(
      el('span', undefined, r === null ? `Line ${e.line}` : `Step ${String(r.get('seq'))} `),
      el('span', 'dim', r === null ? '' : `line ${e.line} · ${sel + 1} / ${view.length} shown`),
    );
    detail.append(h);
    detail.dataset.line = String(e.line);
    if (e.faults.length > 0) {
      const ul = el('ul', 'faults');
      for (const f of e.faults) ul.append(el('li', undefined, `line ${e.line}: ${f.kind}: ${f.message}`));
      detail.append(ul);
    } else if (r !== null) {
      detail.append(el('p', 'okline', '✓ step hash recomputed in this browser and linked to the previous step'));
    }
    if (r === null) {
      detail.append(el('h3', undefined, 'Raw line'), pre(e.text));
      return;
    }
    const dl = el('dl', 'meta');
    const add = (k: string, v: string, cls?: string): HTMLElement => {
      const dd = el('dd', cls, v);
      dl.append(el('dt', undefined, k), dd);
      return dd;
    };
    const ts = r.get('ts');
    const tsNum =
      typeof ts === 'number'
        ? ts
        : typeof ts === 'bigint'
          ? Number(ts)
          : ts !== null && typeof ts === 'object' && !Array.isArray(ts) && !(ts instanceof Map)
            ? ts.f
            : NaN;
    const tsDate = Number.isFinite(tsNum) && Math.abs(tsNum) < 8.64e12 ? new Date(tsNum * 1000).toISOString() : '';
    add('Time', `${tsDate} (ts ${rt.canonical(ts as PageValue)})`);
    add('Model', fieldText(r.get('model')));
    add('Input hash', String(r.get('input_hash')), 'hash');
    add('Prev hash', String(r.get('prev_hash')), 'hash');
    add('Step hash', String(r.get('step_hash')), 'hash');
    if (e.computed !== r.get('step_hash')) add('Recomputed', e.computed ?? '', 'hash badtext');
    // What changed from the previous well-formed row.
    let prev: Map<string, PageValue> | null = null;
    for (let j = idx - 1; j >= 0 && prev === null; j--) prev = (entries[j] as PageEntry).row;
    if (prev !== null) {
      const changed = ['model', 'prompt', 'tool_call', 'tool_result'].filter(
        (k) => rt.canonical(prev.get(k) as PageValue) !== rt.canonical(r.get(k) as PageValue),
      );
      add('Changed', changed.length > 0 ? changed.join(', ') : 'nothing but the hashes and time');
    }
    detail.append(dl);
    for (const k of ['prompt', 'tool_call', 'tool_result']) {
      const v = r.get(k) as PageValue;
      detail.append(el('h3', undefined, k), pre(typeof v === 'string' ? v : rt.display(v)));
    }
    const refs = r.get('blob_refs') as string[];
    detail.append(el('h3', undefined, `blob_refs (${refs.length})`));
    if (refs.length > 0) {
      const ul = el('ul', 'refs');
      for (const d of refs) {
        const li = el('li');
        const b = blobByDigest.get(d);
        li.append(
          el('code', 'hash', d),
          el(
            'span',
            'dim',
            b === undefined
              ? ' (not bundled)'
              : b.size === null
                ? ' (not found)'
                : ` ${fmtSize(b.size)}${b.b64 === undefined ? ` · not embedded: ${b.skipped ?? ''}` : ''}`,
          ),
        );
        if (b?.b64 !== undefined) li.append(blobPreview(b));
        ul.append(li);
      }
      detail.append(ul);
    }
    const raw = el('details');
    raw.append(el('summary', undefined, 'raw line'), pre(e.text));
    detail.append(raw);
  };

  const blobPreview = (b: ReportBlob): HTMLElement => {
    const det = el('details', 'preview');
    det.append(el('summary', undefined, 'preview'));
    let filled = false;
    det.addEventListener('toggle', () => {
      if (filled || !det.open) return;
      filled = true;
      const bytes = rt.base64Bytes(b.b64 ?? '');
      const head = bytes.subarray(0, 4096);
      let binary: boolean;
      let textPreview = '';
      try {
        textPreview = rt.decodeUtf8(head, true);
        binary = /[\u0000-\u0008\u000e-\u001f]/.test(textPreview);
      } catch {
        // A multi-byte character cut at 4 KiB is still text; anything else is binary.
        try {
          textPreview = rt.decodeUtf8(head.subarray(0, Math.max(0, head.length - 3)), true);
          binary = bytes.length <= 4096;
        } catch {
          binary = true;
        }
      }
      if (binary) {
        let hex = '';
        for (let i = 0; i < Math.min(512, bytes.length); i++)
          hex += (bytes[i] as number).toString(16).padStart(2, '0') + (i % 16 === 15 ? '\n' : ' ');
        textPreview = `binary, first ${Math.min(512, bytes.length)} bytes:\n${hex}`;
      } else if (bytes.length > 4096) textPreview += `\n… (${fmtSize(bytes.length)} in all)`;
      det.append(el('pre', 'code', textPreview));
    });
    return det;
  };

  // ---- blobs section ----
  const blobsSec = $('blobs');
  const blobStatus = new Map<string, HTMLElement>();
  if (data.blobs.length > 0) {
    blobsSec.hidden = false;
    const embedded = data.blobs.filter((b) => b.b64 !== undefined).length;
    blobsSec.append(
      el(
        'p',
        'note',
        `${embedded} of ${data.blobs.length} referenced blob(s) embedded (cap ${fmtSize(data.blob_caps.per_blob)} each, ${fmtSize(data.blob_caps.total)} in all).` +
          (embedded < data.blobs.length
            ? ' Skipped blobs are listed with the reason; their bytes are not in this file.'
            : ''),
      ),
    );
    const table = el('table', 'blobs');
    const thead = el('tr');
    for (const t of ['digest', 'size', 'status', '']) thead.append(el('th', undefined, t));
    table.append(thead);
    for (const b of data.blobs) {
      const tr = el('tr');
      const st = el(
        'td',
        undefined,
        b.b64 !== undefined ? 'embedded (digest not checked yet)' : `not embedded: ${b.skipped ?? 'unknown'}`,
      );
      blobStatus.set(b.digest, st);
      const pv = el('td');
      if (b.b64 !== undefined) pv.append(blobPreview(b));
      tr.append(el('td', 'hash', b.digest), el('td', undefined, b.size === null ? '-' : fmtSize(b.size)), st, pv);
      table.append(tr);
    }
    blobsSec.append(table);
  }

  // ---- fork tree ----
  if (data.forks !== null) {
    const sec = $('forks');
    sec.hidden = false;
    const draw = (n: ReportForkNode): HTMLElement => {
      const li = el('li');
      const bits = [n.id];
      if (n.label) bits.push(`“${n.label}”`);
      if (n.from_step !== undefined && n.from_step !== null) bits.push(`from step ${n.from_step}`);
      if (n.branch) bits.push(`branch ${n.branch}`);
      if (n.steps_since !== undefined && n.steps_since !== null)
        bits.push(`+${n.steps_since} step${n.steps_since === 1 ? '' : 's'} since`);
      if (n.journal_ok === false) bits.push('JOURNAL DOES NOT VERIFY');
      if (n.missing) bits.push('WORKTREE MISSING');
      if (n.current) bits.push('(this report)');
      const span = el(
        'span',
        n.current ? 'node current' : n.journal_ok === false || n.missing ? 'node badnode' : 'node',
        bits.join(' · '),
      );
      li.append(span);
      if (n.children.length > 0) {
        const ul = el('ul');
        for (const c of n.children) ul.append(draw(c));
        li.append(ul);
      }
      return li;
    };
    const ul = el('ul', 'tree');
    ul.append(draw(data.forks));
    sec.append(ul);
  }

  // ---- keyboard and search ----
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    if (searchTimer !== undefined) clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      filterText = search.value.trim().toLowerCase();
      rebuildView();
    }, 120);
  });
  onlyFaults.addEventListener('change', () => rebuildView());
  doc.addEventListener('keydown', (ev) => {
    const t = ev.target as HTMLElement | null;
    const typing = t !== null && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA');
    if (typing) {
      if (ev.key === 'Escape') {
        search.value = '';
        filterText = '';
        rebuildView();
        search.blur();
      } else if (ev.key === 'Enter' || ev.key === 'ArrowDown') {
        if (searchTimer !== undefined) clearTimeout(searchTimer);
        filterText = search.value.trim().toLowerCase();
        rebuildView();
        search.blur();
        ev.preventDefault();
      }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const page = Math.max(1, Math.floor(list.clientHeight / ROW_H) - 1);
    let to: number | undefined;
    switch (ev.key) {
      case 'ArrowRight':
      case 'ArrowDown':
      case 'j':
        to = sel + 1;
        break;
      case 'ArrowLeft':
      case 'ArrowUp':
      case 'k':
        to = sel - 1;
        break;
      case 'Home':
      case 'g':
        to = 0;
        break;
      case 'End':
      case 'G':
        to = view.length - 1;
        break;
      case 'PageDown':
        to = sel + page;
        break;
      case 'PageUp':
        to = sel - page;
        break;
      case '/':
        search.focus();
        ev.preventDefault();
        return;
      default:
        return;
    }
    ev.preventDefault();
    userMoved = true;
    select(to);
  });

  // ---- the verification loop: chunks within a time budget, yielding between them ----
  const status = $('status');
  const title = $('status-title');
  const statusDetail = $('status-detail');
  const bar = $('progress-bar');
  const faultList = $('faults');
  root.setAttribute('data-verify-state', 'running');

  const showFaults = (errors: PageFault[]): void => {
    faultList.textContent = '';
    const shown = errors.slice(0, 200);
    for (const f of shown) {
      const li = el('li');
      if (f.line !== null) {
        const a = el('button', 'linklike', `line ${f.line}`);
        const line = f.line;
        a.addEventListener('click', () => jumpToLine(line));
        li.append(a, el('span', undefined, `: ${f.kind}: ${f.message}`));
      } else li.textContent = `${f.kind}: ${f.message}`;
      faultList.append(li);
    }
    if (errors.length > shown.length)
      faultList.append(
        el(
          'li',
          undefined,
          `… and ${errors.length - shown.length} more (tick “only faults” to list every faulty line)`,
        ),
      );
  };

  const finish = (): void => {
    const r = verifier.result();
    // Receipt checks the page cannot redo (the signature) count too, marked as the generator's.
    const receiptFaults = (data.receipt?.generator_faults ?? []).map((f) => ({
      ...f,
      message: `${f.message} (checked by the generator)`,
    }));
    const errors = [...r.errors, ...blobFaults, ...receiptFaults];
    verified = { ...r, ok: errors.length === 0, errors };
    stepsDd.textContent = fmtInt(r.steps);
    headDd.textContent = r.ok ? r.head_hash : `${r.head_hash} (the last stored step_hash: not vouched for)`;
    bar.style.width = '100%';
    root.setAttribute('data-verify-state', 'done');
    root.setAttribute('data-steps', String(r.steps));
    root.setAttribute('data-head-hash', r.head_hash);
    if (verified.ok) {
      status.className = 'status ok';
      title.textContent = `✓ Chain intact: ${fmtInt(r.steps)} step${r.steps === 1 ? '' : 's'} verified in this browser`;
      statusDetail.textContent = `Every step hash was recomputed from the canonical JSON of its fields and every link checked, from genesis to head ${r.head_hash}.`;
      root.setAttribute('data-verified', 'true');
    } else if (r.ok && errors.every((f) => f.kind === 'no_trusted_key')) {
      // One meaning of "signed" (docs/receipts.md): an unchecked signature is never a green verdict, nor tampering.
      status.className = 'status warn';
      title.textContent = '⚠ Chain intact, but the signature was NOT checked';
      statusDetail.textContent = `The chain verified in this browser (head ${r.head_hash}), but the receipt is signed and no trusted public key was given to the generator: who signed it is not established. Regenerate with stepchain report --public-key FILE.`;
      root.setAttribute('data-verified', 'false');
      root.setAttribute('data-first-fault-kind', 'no_trusted_key');
      root.setAttribute('data-fault-count', String(errors.length));
    } else {
      const first = errors[0] as PageFault;
      status.className = 'status bad';
      title.textContent = `✗ TAMPERED OR BROKEN: ${errors.length} fault${errors.length === 1 ? '' : 's'}${first.line !== null ? `, first at line ${first.line}` : ''}`;
      statusDetail.textContent =
        'Do not trust this run as recorded. The faults below were found by recomputing the chain in this browser.';
      showFaults(errors);
      root.setAttribute('data-verified', 'false');
      root.setAttribute('data-first-fault-kind', first.kind);
      if (first.line !== null) root.setAttribute('data-first-fault-line', String(first.line));
      root.setAttribute('data-fault-count', String(errors.length));
      // Open the report on the first faulty step, unless the reader is already elsewhere.
      if (!userMoved && first.line !== null && filterText === '') jumpToLine(first.line);
    }
    if (r.ok !== gv.ok || r.head_hash !== gv.head_hash) {
      statusDetail.textContent += ` Warning: the generator's own check disagreed (${gv.ok ? 'intact' : 'faults'}, head ${gv.head_hash}).`;
    }
    renderList();
  };

  const blobQueue = data.blobs.filter((b) => b.b64 !== undefined);
  const checkBlob = (b: ReportBlob): void => {
    const got = rt.sha256Hex(rt.base64Bytes(b.b64 ?? ''));
    const st = blobStatus.get(b.digest);
    if (got === b.digest) {
      if (st) st.textContent = 'embedded, digest verified ✓';
    } else {
      blobFaults.push({ line: null, kind: 'blob_digest_mismatch', message: `blob ${b.digest} hashes to ${got}` });
      if (st) {
        st.textContent = `digest MISMATCH: bytes hash to ${got}`;
        st.className = 'badtext';
      }
    }
  };

  const tick = (): void => {
    try {
      const t0 = performance.now();
      const before = entries.length;
      let done = false;
      while (!done && performance.now() - t0 < 12) done = verifier.run(64);
      extendView(before);
      const pct = verifier.total === 0 ? 100 : Math.floor((entries.length / verifier.total) * 100);
      bar.style.width = `${pct}%`;
      title.textContent = `Verifying in this browser… ${fmtInt(entries.length)} / ${fmtInt(verifier.total)} lines`;
      renderList(before === 0);
      if (!done) {
        setTimeout(tick, 0);
        return;
      }
      while (blobQueue.length > 0 && performance.now() - t0 < 12) checkBlob(blobQueue.shift() as ReportBlob);
      if (blobQueue.length > 0) {
        title.textContent = `Checking bundled blobs… ${blobQueue.length} left`;
        setTimeout(tick, 0);
        return;
      }
      finish();
    } catch (e) {
      fail('report_error', `verification stopped: ${(e as Error).message}`);
    }
  };
  setTimeout(tick, 0);
}
