import type { ReportReceiptInfo } from './data';
import { display, orderedRow } from './display';
import { addMeta, byId, el } from './dom';
import { base64Bytes, parsePastedKey, verifyEd25519 } from './signature';
import { lossyText, type ReportState } from './state';
import { renderVerdict } from './verdict';

/** The receipt section: its signature checked in the browser, a box to check it under a pasted key, its manifest. */
export function renderReceipt(state: ReportState): void {
  const r = state.data.receipt;
  if (r === null) return;
  const manifest = base64Bytes(r.manifest_b64);
  const sig = r.signature_b64 === null ? null : base64Bytes(r.signature_b64);
  judgeSignature(state, r, manifest, sig);
  const sec = byId(state.doc, 'receipt');
  sec.hidden = false;
  const dl = el(state.doc, 'dl', 'meta');
  addMeta(dl, 'Signed', r.signed ? 'yes (manifest.sig, Ed25519)' : 'no', r.signed ? undefined : 'warn');
  state.signature.cell = addMeta(dl, 'Signature', '');
  addMeta(
    dl,
    'Keys given to the generator',
    r.public_keys.length === 0 ? 'none' : r.public_keys.map((k) => `${k.key_id} (${k.source})`).join('\n'),
    'hash',
  );
  addMeta(dl, 'Generator said', r.signature_check);
  if (r.keyless !== null)
    addMeta(dl, 'Keyless signer', r.keyless.text, r.keyless.verified ? 'oktext' : 'warn').setAttribute(
      'data-keyless',
      r.keyless.verified ? 'verified' : 'not_verified',
    );
  addMeta(dl, 'Expected head', state.data.expected_head ?? '(none)', 'hash');
  if (r.generator_faults.length > 0)
    addMeta(dl, 'Receipt problems', r.generator_faults.map((f) => `${f.kind}: ${f.message}`).join('\n'), 'badtext');
  sec.append(dl);
  renderSignature(state);
  if (r.signed && sig !== null) sec.append(pasteKeyBox(state, sig, manifest));
  const det = el(state.doc, 'details');
  det.append(el(state.doc, 'summary', undefined, 'manifest.json'));
  let manifestShown = lossyText(manifest);
  const parsed = orderedRow(manifestShown);
  if (parsed !== null) manifestShown = display(parsed);
  det.append(el(state.doc, 'pre', 'code', manifestShown));
  sec.append(det);
  sec.append(
    el(
      state.doc,
      'p',
      'note',
      'Checked in this browser: the chain (every step hash, link and seq), that it ends at the manifest head, the bundled blobs’ digests, and the Ed25519 signature over manifest.json under the keys above or a key you paste. ' +
        'Checked by the generator only: the archive structure and that blob_digests matches the chain.',
    ),
  );
}

/** The signature's state under the keys given to the generator. */
function judgeSignature(state: ReportState, r: ReportReceiptInfo, manifest: Uint8Array, sig: Uint8Array | null): void {
  const s = state.signature;
  if (!r.signed || sig === null) {
    s.state = 'unsigned';
    if (r.public_keys.length > 0)
      s.faults.push({
        line: null,
        kind: 'unsigned',
        message: 'manifest.sig: a trusted key was given but the receipt is not signed (no manifest.sig)',
      });
  } else if (r.public_keys.length === 0) {
    s.state = 'not_checked';
  } else {
    const good = r.public_keys.find((k) => verifyEd25519(sig, manifest, base64Bytes(k.raw_b64)));
    if (good !== undefined) {
      s.state = 'verified';
      s.key = good.key_id;
    } else {
      s.state = 'invalid';
      s.faults.push({
        line: null,
        kind: 'signature_invalid',
        message: `manifest.sig: the signature does not verify under any trusted key (${r.public_keys.map((k) => k.key_id).join(', ')})`,
      });
    }
  }
}

/** Shows the signature's state in the receipt section and as `data-signature` (nothing without a receipt). */
export function renderSignature(state: ReportState): void {
  const { state: signature, key, pastedFailed, cell } = state.signature;
  if (cell === null) return;
  cell.className = signature === 'verified' ? 'oktext' : signature === 'invalid' ? 'badtext' : 'warn';
  cell.textContent =
    signature === 'verified'
      ? `✓ verified in this browser under key ${key ?? ''}`
      : signature === 'invalid'
        ? '✗ does NOT verify under the given key(s)'
        : signature === 'not_checked'
          ? pastedFailed.length > 0
            ? `NOT checked: the pasted key ${pastedFailed.join(', ')} does not hold. Paste the signer’s public key below to check it here.`
            : 'NOT checked: no public key was given. Paste the signer’s public key below to check it here.'
          : 'unsigned: there is no signature to check';
  state.root.setAttribute('data-signature', signature ?? '');
  if (key !== null) state.root.setAttribute('data-signature-key', key);
}

/** The box where a reviewer pastes a public key to check the signature under it, offline. */
function pasteKeyBox(state: ReportState, sig: Uint8Array, manifest: Uint8Array): HTMLElement {
  const { doc } = state;
  const box = el(doc, 'div', 'paste');
  const label = el(
    doc,
    'label',
    undefined,
    'Check the signature with a public key (PEM, or 32 bytes as hex or base64):',
  );
  const area = el(doc, 'textarea');
  area.id = 'public-key';
  area.rows = 3;
  area.spellcheck = false;
  area.placeholder = '-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----';
  label.append(area);
  const button = el(doc, 'button', undefined, 'Check signature');
  button.id = 'check-signature';
  const result = el(doc, 'div', 'paste-result');
  result.id = 'signature-result';
  result.setAttribute('role', 'status');
  button.addEventListener('click', () => checkPastedKey(state, area.value, result, sig, manifest));
  box.append(label, button, result);
  return box;
}

/** Checks the signature under a pasted key; a key that holds makes an unchecked signature verified. */
function checkPastedKey(
  state: ReportState,
  text: string,
  result: HTMLElement,
  sig: Uint8Array,
  manifest: Uint8Array,
): void {
  const s = state.signature;
  const key = parsePastedKey(text);
  if (!key.ok) {
    result.className = 'paste-result warn';
    result.textContent = `Not a usable key: ${key.reason}`;
    state.root.setAttribute('data-pasted-key', 'bad_key');
    return;
  }
  if (verifyEd25519(sig, manifest, key.raw)) {
    result.className = 'paste-result oktext';
    result.textContent = `✓ The manifest signature holds under key ${key.keyId}: this receipt's manifest.json was signed by that key's owner and not changed since (checked in this browser, offline).`;
    state.root.setAttribute('data-pasted-key', 'holds');
    if (s.state === 'not_checked') {
      s.state = 'verified';
      s.key = key.keyId;
      renderSignature(state);
      renderVerdict(state);
    }
  } else {
    result.className = 'paste-result badtext';
    result.textContent = `✗ The manifest signature does NOT hold under key ${key.keyId}: either another key signed it, or manifest.json was changed after signing.`;
    state.root.setAttribute('data-pasted-key', 'fails');
    if (s.state === 'not_checked' && !s.pastedFailed.includes(key.keyId)) {
      s.pastedFailed.push(key.keyId);
      renderSignature(state);
      renderVerdict(state);
    }
  }
}
