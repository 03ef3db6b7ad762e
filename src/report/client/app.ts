import type { JsonValue } from '../../canonical';
import { decodeUtf8 as strictUtf8 } from '../../canonical';
import { unhashedKeys } from '../../journal/row';
import { valueChanges } from '../../replay/changes';
import type { PageFault, PageVerifyResult, ReportBlob, ReportData, ReportForkNode } from './data';
import { display, fieldText, orderedRow, preview } from './display';
import { sha256Hex } from './hash';
import { base64Bytes, parsePastedKey, verifyEd25519 } from './signature';
import { createVerifier, type PageEntry } from './verifier';

/**
 * The report page's user interface. It reads the embedded data, verifies the
 * chain in chunks (yielding to the browser between them), renders a virtual step
 * list, the step detail, blobs, the receipt and its signature, and the fork
 * tree, and sets the root element's data-* attributes when done (docs/report.md).
 * All journal text goes in with `textContent`: the journal is untrusted input.
 */

/** Signature states the page shows (and sets as `data-signature`). */
type SignatureState = 'unsigned' | 'not_checked' | 'verified' | 'invalid';

const lossyUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const HASHED_FIELDS = ['model', 'prompt', 'tool_call', 'tool_result'] as const;
/** Blob rows shown at a time (a run can reference tens of thousands). */
const BLOB_PAGE = 100;

export function startReport(doc: Document): void {
  const root = doc.documentElement;
  const $ = (id: string): HTMLElement => {
    const e = doc.getElementById(id);
    if (e === null) throw new Error(`page element #${id} is missing`);
    return e;
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
  const plural = (n: number, one: string, many = `${one}s`): string => `${fmtInt(n)} ${n === 1 ? one : many}`;

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
    if (data.format !== 2) throw new Error(`format ${String(data.format)}, this page reads format 2`);
  } catch (e) {
    fail('report_error', `embedded data unreadable: ${(e as Error).message}`);
    return;
  }

  // ---- verification state ----
  const win = data.window;
  const gv = data.generator_verify;
  const journal = base64Bytes(data.journal_b64);
  const verifier = createVerifier(journal, { expectedHead: data.expected_head, window: win });
  const entries = verifier.entries;
  const blobFaults: PageFault[] = [];
  let finished: PageVerifyResult | null = null;
  const textOf = (e: PageEntry): string => lossyUtf8.decode(journal.subarray(e.start, e.end));

  // ---- header ----
  const meta = $('meta');
  const metaRow = (k: string, v: string, cls?: string): HTMLElement => {
    const dd = el('dd', cls, v);
    meta.append(el('dt', undefined, k), dd);
    return dd;
  };
  metaRow('Agent', data.agent_id);
  metaRow('Source', `${data.source.kind === 'receipt' ? 'receipt' : 'journal'} ${data.source.path}`);
  const stepsDd = metaRow('Steps', '…');
  const headDd = metaRow('Head hash', '…', 'hash');
  metaRow('Generated', `${data.generated_at} by ${data.generator}`);
  metaRow(
    'Generator check',
    gv.ok
      ? `intact (${plural(gv.steps, 'step')}, head ${gv.head_hash})`
      : `${plural(gv.errors.length, 'fault')}: first ${gv.errors[0]?.kind ?? ''} at line ${gv.errors[0]?.line ?? '-'}`,
    'hash',
  );
  if (win !== null) {
    metaRow(
      'Window',
      `lines ${fmtInt(win.first_line)}–${fmtInt(win.first_line + Math.max(0, verifier.total - 1))} of ${fmtInt(win.total_lines)} are embedded; ` +
        `the first links to step_hash ${win.anchor_hash}, which the generator verified from genesis`,
      'hash warn',
    );
  }

  // ---- receipt and its signature ----
  let signature: SignatureState | null = null;
  let signatureKey: string | null = null;
  const signatureFaults: PageFault[] = [];
  // Keys a reviewer pasted that did not hold: the signature stays unchecked (another key may have signed it), but the
  // page no longer says that no key was given.
  const pastedFailed: string[] = [];
  let renderSignature = (): void => {};
  if (data.receipt !== null) {
    const r = data.receipt;
    const manifest = base64Bytes(r.manifest_b64);
    const sig = r.signature_b64 === null ? null : base64Bytes(r.signature_b64);
    if (!r.signed || sig === null) {
      signature = 'unsigned';
      if (r.public_keys.length > 0)
        signatureFaults.push({
          line: null,
          kind: 'unsigned',
          message: 'manifest.sig: a trusted key was given but the receipt is not signed (no manifest.sig)',
        });
    } else if (r.public_keys.length === 0) {
      signature = 'not_checked';
    } else {
      const good = r.public_keys.find((k) => verifyEd25519(sig, manifest, base64Bytes(k.raw_b64)));
      if (good !== undefined) {
        signature = 'verified';
        signatureKey = good.key_id;
      } else {
        signature = 'invalid';
        signatureFaults.push({
          line: null,
          kind: 'signature_invalid',
          message: `manifest.sig: the signature does not verify under any trusted key (${r.public_keys.map((k) => k.key_id).join(', ')})`,
        });
      }
    }
    const sec = $('receipt');
    sec.hidden = false;
    const dl = el('dl', 'meta');
    const add = (k: string, v: string, cls?: string): HTMLElement => {
      const dd = el('dd', cls, v);
      dl.append(el('dt', undefined, k), dd);
      return dd;
    };
    add('Signed', r.signed ? 'yes (manifest.sig, Ed25519)' : 'no', r.signed ? undefined : 'warn');
    const sigDd = add('Signature', '');
    add(
      'Keys given to the generator',
      r.public_keys.length === 0 ? 'none' : r.public_keys.map((k) => `${k.key_id} (${k.source})`).join('\n'),
      'hash',
    );
    add('Generator said', r.signature_check);
    add('Expected head', data.expected_head ?? '(none)', 'hash');
    if (r.generator_faults.length > 0)
      add('Receipt problems', r.generator_faults.map((f) => `${f.kind}: ${f.message}`).join('\n'), 'badtext');
    sec.append(dl);
    renderSignature = (): void => {
      sigDd.className = signature === 'verified' ? 'oktext' : signature === 'invalid' ? 'badtext' : 'warn';
      sigDd.textContent =
        signature === 'verified'
          ? `✓ verified in this browser under key ${signatureKey ?? ''}`
          : signature === 'invalid'
            ? '✗ does NOT verify under the given key(s)'
            : signature === 'not_checked'
              ? pastedFailed.length > 0
                ? `NOT checked: the pasted key ${pastedFailed.join(', ')} does not hold. Paste the signer’s public key below to check it here.`
                : 'NOT checked: no public key was given. Paste the signer’s public key below to check it here.'
              : 'unsigned: there is no signature to check';
      root.setAttribute('data-signature', signature ?? '');
      if (signatureKey !== null) root.setAttribute('data-signature-key', signatureKey);
    };
    renderSignature();

    if (r.signed && sig !== null) {
      const box = el('div', 'paste');
      const label = el(
        'label',
        undefined,
        'Check the signature with a public key (PEM, or 32 bytes as hex or base64):',
      );
      const area = el('textarea');
      area.id = 'public-key';
      area.rows = 3;
      area.spellcheck = false;
      area.placeholder = '-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----';
      label.append(area);
      const button = el('button', undefined, 'Check signature');
      button.id = 'check-signature';
      const result = el('div', 'paste-result');
      result.id = 'signature-result';
      result.setAttribute('role', 'status');
      button.addEventListener('click', () => {
        const key = parsePastedKey(area.value);
        if (!key.ok) {
          result.className = 'paste-result warn';
          result.textContent = `Not a usable key: ${key.reason}`;
          root.setAttribute('data-pasted-key', 'bad_key');
          return;
        }
        if (verifyEd25519(sig, manifest, key.raw)) {
          result.className = 'paste-result oktext';
          result.textContent = `✓ The manifest signature holds under key ${key.keyId}: this receipt's manifest.json was signed by that key's owner and not changed since (checked in this browser, offline).`;
          root.setAttribute('data-pasted-key', 'holds');
          if (signature === 'not_checked') {
            signature = 'verified';
            signatureKey = key.keyId;
            renderSignature();
            renderVerdict();
          }
        } else {
          result.className = 'paste-result badtext';
          result.textContent = `✗ The manifest signature does NOT hold under key ${key.keyId}: either another key signed it, or manifest.json was changed after signing.`;
          root.setAttribute('data-pasted-key', 'fails');
          if (signature === 'not_checked' && !pastedFailed.includes(key.keyId)) {
            pastedFailed.push(key.keyId);
            renderSignature();
            renderVerdict();
          }
        }
      });
      box.append(label, button, result);
      sec.append(box);
    }
    const det = el('details');
    det.append(el('summary', undefined, 'manifest.json'));
    let manifestShown = lossyUtf8.decode(manifest);
    const parsed = orderedRow(manifestShown);
    if (parsed !== null) manifestShown = display(parsed);
    det.append(el('pre', 'code', manifestShown));
    sec.append(det);
    sec.append(
      el(
        'p',
        'note',
        'Checked in this browser: the chain (every step hash, link and seq), that it ends at the manifest head, the bundled blobs’ digests, and the Ed25519 signature over manifest.json under the keys above or a key you paste. ' +
          'Checked by the generator only: the archive structure and that blob_digests matches the chain.',
      ),
    );
  }

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

  const haystack = (i: number): string => {
    let h = hay[i];
    if (h === undefined) {
      const e = entries[i]!;
      const r = e.row;
      h = (
        r === null
          ? `line ${e.line} ${textOf(e)}`
          : `#${r.seq} ${fieldText(r.model)} ${fieldText(r.prompt)} ${fieldText(r.tool_call)} ${fieldText(r.tool_result)} ${r.step_hash}`
      ).toLowerCase();
      hay[i] = h;
    }
    return h;
  };
  const matches = (i: number): boolean => {
    const e = entries[i]!;
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
    if (r === null) return { n: `L${e.line}`, text: `malformed line: ${textOf(e).slice(0, 80)}` };
    const call = r.tool_call;
    const name =
      call !== null && typeof call === 'object' && !Array.isArray(call) && !(call instanceof Map)
        ? (call as Record<string, JsonValue>).name
        : undefined;
    const tool = typeof name === 'string' ? `${name} · ` : '';
    const p = r.prompt === null ? '' : fieldText(r.prompt);
    return { n: `#${r.seq}`, text: `${tool}${p.slice(0, 120)}` };
  };

  let rendered = new Map<number, HTMLElement>();
  const renderList = (force = false): void => {
    spacer.style.height = `${view.length * ROW_H}px`;
    const top = list.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_H) - 10);
    const last = Math.min(view.length, Math.ceil((top + list.clientHeight) / ROW_H) + 10);
    const next = new Map<number, HTMLElement>();
    for (let v = first; v < last; v++) {
      const idx = view[v]!;
      let row = force ? undefined : rendered.get(v);
      if (row !== undefined && row.dataset.entry !== String(idx)) row = undefined;
      if (row === undefined) {
        const e = entries[idx]!;
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
    const pos = doc.getElementById('detail-position');
    if (pos) pos.textContent = sel >= 0 && view.length > 0 ? `${fmtInt(sel + 1)} / ${fmtInt(view.length)} shown` : '';
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
    const idx = entries.findIndex((e) => e.line === line);
    const v = idx < 0 ? -1 : view.indexOf(idx);
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

  /** The previous well-formed row before entry `idx`, with its line text. */
  const previousRow = (idx: number): PageEntry | null => {
    for (let j = idx - 1; j >= 0; j--) if (entries[j]!.row !== null) return entries[j]!;
    return null;
  };

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
    const idx = view[sel]!;
    const e = entries[idx]!;
    const r = e.row;
    const text = textOf(e);
    const h = el('h2');
    const position = el('span', 'dim');
    position.id = 'detail-position';
    position.textContent = `${fmtInt(sel + 1)} / ${fmtInt(view.length)} shown`;
    h.append(
      el('span', undefined, r === null ? `Line ${e.line} ` : `Step ${r.seq} `),
      el('span', 'dim', `line ${e.line} · `),
      position,
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
      detail.append(el('h3', undefined, 'Raw line'), pre(text));
      return;
    }
    const shown = orderedRow(text);
    const field = (k: string): JsonValue | undefined => (shown === null ? undefined : shown.get(k));
    const dl = el('dl', 'meta');
    const add = (k: string, v: string, cls?: string): HTMLElement => {
      const dd = el('dd', cls, v);
      dl.append(el('dt', undefined, k), dd);
      return dd;
    };
    const ts = r.ts;
    const tsDate = Number.isFinite(ts) && Math.abs(ts) < 8.64e12 ? new Date(ts * 1000).toISOString() : '';
    add('Time', `${tsDate} (ts ${display(field('ts') ?? null)})`);
    add('Model', fieldText(field('model') ?? r.model));
    add('Input hash', r.input_hash, 'hash');
    add('Prev hash', r.prev_hash, 'hash');
    add('Step hash', r.step_hash, 'hash');
    if (e.computed !== r.step_hash) add('Recomputed', e.computed ?? '', 'hash badtext');
    // What changed from the previous well-formed row, value by value (into objects, as the terminal replay
    // shows it: src/replay/changes.ts), with both values.
    const prev = previousRow(idx);
    if (prev !== null && prev.row !== null) {
      const before = orderedRow(textOf(prev));
      const changes: string[] = [];
      const shown = (v: JsonValue | undefined): string => {
        const t = preview(fieldText(v), 120);
        return t === '' ? '""' : t;
      };
      for (const k of HASHED_FIELDS) {
        for (const c of valueChanges(k, before?.get(k) ?? prev.row[k], field(k) ?? r[k])) {
          if (c.kind === 'added') changes.push(`+ ${c.path}: ${shown(c.after)}`);
          else if (c.kind === 'removed') changes.push(`- ${c.path}: ${shown(c.before)}`);
          else changes.push(`${c.path}: ${shown(c.before)} → ${shown(c.after)}`);
        }
      }
      const MAX_CHANGES = 40;
      const listed =
        changes.length > MAX_CHANGES
          ? [...changes.slice(0, MAX_CHANGES), `… ${changes.length - MAX_CHANGES} more`]
          : changes;
      const dd = add('Changed', listed.length > 0 ? listed.join('\n') : 'nothing but the hashes and time');
      dd.classList.add('changed');
    }
    detail.append(dl);
    // Keys outside the ten: no hash covers them, so they are set apart, never shown as part of the step
    // (textContent only: a key or value is data, never markup).
    const extra = shown === null ? [] : unhashedKeys(shown.keys());
    if (extra.length > 0) {
      const box = el('div', 'unverified');
      box.append(
        el('h3', 'warn', 'Unverified: keys outside the hashed row'),
        el(
          'p',
          'note',
          'No step hash covers these keys: anyone who could write the journal could have added or changed them without breaking the chain. They are not part of the verified step.',
        ),
      );
      const udl = el('dl', 'meta');
      for (const k of extra) {
        const v = shown!.get(k)!;
        udl.append(el('dt', 'warn', k), el('dd', undefined, typeof v === 'string' ? v : display(v)));
      }
      box.append(udl);
      detail.append(box);
      detail.dataset.unverified = extra.join(',');
    }
    for (const k of ['prompt', 'tool_call', 'tool_result'] as const) {
      const v = field(k) ?? r[k];
      detail.append(el('h3', undefined, k), pre(typeof v === 'string' ? v : display(v)));
    }
    const refs = r.blob_refs;
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
    raw.append(el('summary', undefined, 'raw line'), pre(text));
    detail.append(raw);
  };

  const blobPreview = (b: ReportBlob): HTMLElement => {
    const det = el('details', 'preview');
    det.append(el('summary', undefined, 'preview'));
    let filled = false;
    det.addEventListener('toggle', () => {
      if (filled || !det.open) return;
      filled = true;
      const bytes = base64Bytes(b.b64 ?? '');
      const head = bytes.subarray(0, 4096);
      let binary: boolean;
      let textPreview = '';
      try {
        textPreview = strictUtf8(head);
        binary = /[\u0000-\u0008\u000e-\u001f]/.test(textPreview);
      } catch {
        // A multi-byte character cut at 4 KiB is still text; anything else is binary.
        try {
          textPreview = strictUtf8(head.subarray(0, Math.max(0, head.length - 3)));
          binary = bytes.length <= 4096;
        } catch {
          binary = true;
        }
      }
      if (binary) {
        let hex = '';
        for (let i = 0; i < Math.min(512, bytes.length); i++)
          hex += bytes[i]!.toString(16).padStart(2, '0') + (i % 16 === 15 ? '\n' : ' ');
        textPreview = `binary, first ${Math.min(512, bytes.length)} bytes:\n${hex}`;
      } else if (bytes.length > 4096) textPreview += `\n… (${fmtSize(bytes.length)} in all)`;
      det.append(el('pre', 'code', textPreview));
    });
    return det;
  };

  // ---- blobs: a summary by status, then the rows a page at a time ----
  const blobsSec = $('blobs');
  /** What the page found for each embedded blob (absent: not checked yet). */
  const blobChecked = new Map<string, string | true>();
  const blobStatusText = (b: ReportBlob): string => {
    if (b.b64 === undefined) return `not embedded: ${b.skipped ?? 'unknown'}`;
    const c = blobChecked.get(b.digest);
    return c === undefined
      ? 'embedded (digest not checked yet)'
      : c === true
        ? 'embedded, digest verified ✓'
        : `digest MISMATCH: bytes hash to ${c}`;
  };
  let renderBlobs = (): void => {};
  if (data.blobs.length > 0) {
    blobsSec.hidden = false;
    const summary = el('p', 'note');
    summary.id = 'blob-summary';
    const table = el('table', 'blobs');
    const more = el('button', 'more');
    more.id = 'blob-more';
    let shownRows = 0;
    const statusCells = new Map<string, HTMLElement>();
    const addRows = (n: number): void => {
      const stop = Math.min(data.blobs.length, shownRows + n);
      for (; shownRows < stop; shownRows++) {
        const b = data.blobs[shownRows]!;
        const tr = el('tr');
        const st = el('td', undefined, blobStatusText(b));
        statusCells.set(b.digest, st);
        const pv = el('td');
        if (b.b64 !== undefined) pv.append(blobPreview(b));
        tr.append(el('td', 'hash', b.digest), el('td', undefined, b.size === null ? '-' : fmtSize(b.size)), st, pv);
        table.append(tr);
      }
      const left = data.blobs.length - shownRows;
      more.hidden = left === 0;
      more.textContent = `show ${fmtInt(Math.min(BLOB_PAGE, left))} more (${fmtInt(left)} not shown)`;
    };
    more.addEventListener('click', () => addRows(BLOB_PAGE));
    renderBlobs = (): void => {
      const counts = new Map<string, number>();
      for (const b of data.blobs) {
        const s =
          b.b64 === undefined
            ? `not embedded: ${b.skipped ?? 'unknown'}`
            : blobChecked.get(b.digest) === undefined
              ? 'embedded, not checked yet'
              : blobChecked.get(b.digest) === true
                ? 'embedded, digest verified'
                : 'embedded, digest MISMATCH';
        counts.set(s, (counts.get(s) ?? 0) + 1);
      }
      const embedded = data.blobs.filter((b) => b.b64 !== undefined).length;
      summary.textContent =
        `${plural(data.blobs.length, 'referenced blob')}: ${fmtInt(embedded)} embedded (cap ${fmtSize(data.blob_caps.per_blob)} each, ${fmtSize(data.blob_caps.total)} in all). ` +
        [...counts].map(([s, n]) => `${fmtInt(n)} ${s}`).join('; ') +
        '.';
      for (const [d, cell] of statusCells) {
        const b = blobByDigest.get(d)!;
        cell.textContent = blobStatusText(b);
        cell.className = blobChecked.get(d) !== undefined && blobChecked.get(d) !== true ? 'badtext' : '';
      }
    };
    const thead = el('tr');
    for (const t of ['digest', 'size', 'status', '']) thead.append(el('th', undefined, t));
    table.append(thead);
    blobsSec.append(summary, table, more);
    addRows(BLOB_PAGE);
    renderBlobs();
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
    if (t !== null && t.tagName === 'TEXTAREA') return;
    if (t !== null && t.tagName === 'INPUT') {
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

  // ---- the verdict ----
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

  /** Faults the generator found where the page cannot look (outside the embedded window). */
  const outsideFaults = (): PageFault[] => {
    if (win === null) return [];
    const last = win.first_line + verifier.total - 1;
    const reachesEnd = last >= win.total_lines;
    return gv.errors
      .filter((f) => (f.line === null ? !reachesEnd : f.line < win.first_line || f.line > last))
      .map((f) => ({ ...f, message: `${f.message} (outside the embedded window: checked by the generator)` }));
  };

  const renderVerdict = (): PageFault[] => {
    if (finished === null) return [];
    const r = finished;
    // Receipt checks the page cannot redo (archive structure, blob_digests) count too, marked as the generator's.
    const receiptFaults = (data.receipt?.generator_faults ?? []).map((f) => ({
      ...f,
      message: `${f.message} (checked by the generator)`,
    }));
    const errors = [...r.errors, ...outsideFaults(), ...blobFaults, ...receiptFaults, ...signatureFaults];
    const steps = win === null ? r.steps : win.total_steps;
    stepsDd.textContent =
      win === null ? fmtInt(r.steps) : `${fmtInt(win.total_steps)} (${fmtInt(r.steps)} embedded and checked here)`;
    headDd.textContent =
      errors.length === 0 ? r.head_hash : `${r.head_hash} (the last stored step_hash: not vouched for)`;
    bar.style.width = '100%';
    root.setAttribute('data-verify-state', 'done');
    root.setAttribute('data-steps', String(steps));
    root.setAttribute('data-head-hash', r.head_hash);
    if (errors.length === 0 && signature === 'not_checked') {
      // One meaning of "signed" (docs/receipts.md): a signature nobody checked is never a green verdict, nor
      // tampering. A key pasted below that verifies it makes the verdict green.
      status.className = 'status warn';
      title.textContent = '⚠ Chain intact, but the signature was NOT checked';
      statusDetail.textContent =
        `The chain verified in this browser (head ${r.head_hash}), but the receipt is signed and ` +
        (pastedFailed.length > 0
          ? `the signature does not hold under the pasted key ${pastedFailed.join(', ')}: `
          : 'no public key was given: ') +
        'who signed it is not established. Paste the signer’s public key below to check it here, offline.';
      faultList.textContent = '';
      root.setAttribute('data-verified', 'false');
      root.setAttribute('data-first-fault-kind', 'no_trusted_key');
      root.setAttribute('data-fault-count', '1');
      root.removeAttribute('data-first-fault-line');
    } else if (errors.length === 0) {
      status.className = 'status ok';
      const what =
        win === null
          ? `${plural(r.steps, 'step')} verified in this browser`
          : `steps ${fmtInt(win.first_seq)}–${fmtInt(win.first_seq + Math.max(0, r.steps - 1))} of ${fmtInt(win.total_steps)} verified in this browser`;
      title.textContent = `✓ Chain intact: ${what}${signature === 'verified' ? '; signature verified' : ''}`;
      statusDetail.textContent =
        win === null
          ? `Every step hash was recomputed from the canonical JSON of its fields and every link checked, from genesis to head ${r.head_hash}.`
          : `Every embedded step hash was recomputed and every link checked, from the generator-verified step_hash ${win.anchor_hash} to head ${r.head_hash}. The ${fmtInt(win.total_steps - r.steps)} steps outside the window are not in this file.`;
      faultList.textContent = '';
      root.setAttribute('data-verified', 'true');
      for (const a of ['data-first-fault-kind', 'data-first-fault-line', 'data-fault-count']) root.removeAttribute(a);
    } else {
      const first = errors[0]!;
      status.className = 'status bad';
      title.textContent = `✗ TAMPERED OR BROKEN: ${plural(errors.length, 'fault')}${first.line !== null ? `, first at line ${first.line}` : ''}`;
      statusDetail.textContent =
        'Do not trust this run as recorded. The faults below were found by recomputing the chain in this browser, unless marked otherwise.';
      showFaults(errors);
      root.setAttribute('data-verified', 'false');
      root.setAttribute('data-first-fault-kind', first.kind);
      if (first.line !== null) root.setAttribute('data-first-fault-line', String(first.line));
      else root.removeAttribute('data-first-fault-line');
      root.setAttribute('data-fault-count', String(errors.length));
    }
    if (win === null && (r.ok !== gv.ok || r.head_hash !== gv.head_hash)) {
      statusDetail.textContent += ` Warning: the generator's own check disagreed (${gv.ok ? 'intact' : 'faults'}, head ${gv.head_hash}).`;
    }
    renderList();
    return errors;
  };

  const finish = (): void => {
    finished = verifier.result();
    const errors = renderVerdict();
    // Open the report on the first faulty step, unless the reader is already elsewhere.
    const first = errors[0];
    if (!userMoved && first !== undefined && first.line !== null && filterText === '') jumpToLine(first.line);
  };

  // ---- the verification loop: chunks within a time budget, yielding between them ----
  const blobQueue = data.blobs.filter((b) => b.b64 !== undefined);
  const checkBlob = (b: ReportBlob): void => {
    const got = sha256Hex(base64Bytes(b.b64 ?? ''));
    if (got === b.digest) blobChecked.set(b.digest, true);
    else {
      blobChecked.set(b.digest, got);
      blobFaults.push({ line: null, kind: 'blob_digest_mismatch', message: `blob ${b.digest} hashes to ${got}` });
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
      while (blobQueue.length > 0 && performance.now() - t0 < 12) checkBlob(blobQueue.shift()!);
      if (blobQueue.length > 0) {
        title.textContent = `Checking bundled blobs… ${fmtInt(blobQueue.length)} left`;
        renderBlobs();
        setTimeout(tick, 0);
        return;
      }
      renderBlobs();
      finish();
    } catch (e) {
      fail('report_error', `verification stopped: ${(e as Error).message}`);
    }
  };
  setTimeout(tick, 0);
}
