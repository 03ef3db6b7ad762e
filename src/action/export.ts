import * as core from '@actions/core';
import path from 'node:path';
import {
  exportAllReceipts,
  globSet,
  matchesGlob,
  mdCode,
  mdText,
  writeHtmlReports,
  type ExportedReceipt,
} from '../check';
import { committedTest } from '../check/committed';
import { headCommit } from '../git';
import { PRODUCER } from '../version';
import { uploadFiles } from './github';
import type { ActionInputs } from './inputs';
import { endpointInputs, signExported } from './keyless';
import { info, oneLineMessage } from './log';
import {
  annotate,
  defaultArtifactName,
  failureLine,
  MAX_ANNOTATIONS,
  reportDir,
  setBoundedOutput,
  where,
  writeJson,
  writeSummary,
} from './outputs';
import { plural } from '../util/words';
/** The Action's export mode: every journal of the workspace exported as a receipt, signed, uploaded. */

export async function exportMode(inputs: ActionInputs, workspace: string): Promise<void> {
  if (inputs.signingKey === undefined && !inputs.keyless)
    core.warning('export: allow-unsigned is true: the receipts are not signed.');
  const dir = reportDir();
  const head = await headCommit(workspace);
  // What is signed is what the commit holds: never a journal a .gitattributes conversion or a submodule shows.
  const journals = globSet(inputs.journals.patterns ?? []);
  const committed =
    head === undefined
      ? undefined
      : await committedTest(
          workspace,
          head,
          (rel) => matchesGlob(journals, rel),
          () => false,
        );
  const r = exportAllReceipts({
    root: workspace,
    ...(committed === undefined ? {} : { committed }),
    outDir: dir,
    journals: inputs.journals.patterns ?? [],
    agents: inputs.agents,
    ...(inputs.signingKey === undefined ? {} : { signKey: inputs.signingKey }),
    redact: inputs.redact,
    // A bundle beside an output signed another receipt: refused (the library's stale-bundle rule, as the CLI's).
    keyless: inputs.keyless,
    staleBundleRemedy: 'remove it, or set keyless: true to sign anew',
  });
  // Keyless: each receipt signed through Sigstore (and attested); one that cannot be is removed and a fault.
  const keyless = inputs.keyless
    ? await signExported(
        r.receipts,
        { attest: inputs.attest, githubToken: inputs.githubToken, endpoints: endpointInputs(inputs.sigstoreURLs) },
        r.faults,
      )
    : undefined;
  if (keyless !== undefined) r.receipts = keyless.kept;
  const bundleOf = new Map((keyless?.signed ?? []).map((k) => [k.receipt, k]));
  if (r.faults.length > 0) core.setFailed(oneLineMessage(failureLine(r.faults, 'export failed')));
  annotate(r.faults, r.faults.length > 0 ? MAX_ANNOTATIONS - 1 : MAX_ANNOTATIONS);
  const rel = (x: ExportedReceipt) => ({ ...x, file: path.basename(x.file) });
  for (const x of r.receipts) {
    for (const w of x.warnings ?? []) core.warning(oneLineMessage(`export: ${x.agent_id}: ${w}`));
    info(
      `Exported ${x.agent_id}: ${x.steps} steps, head ${x.head_hash}${x.signed ? `, signed (${x.key_id})` : ', unsigned'}` +
        `${x.redacted ? `, published with ${x.redacted.join(', ')} redacted (original head ${x.original_head})` : ''}`,
    );
  }
  const reportFile = path.join(dir, 'report.json');
  const headsFile = path.join(dir, 'heads.json');
  const heads = Object.fromEntries(r.receipts.map((x) => [x.agent_id, x.head_hash]));
  writeJson(reportFile, {
    producer: PRODUCER,
    mode: 'export',
    ok: r.faults.length === 0,
    verified: r.receipts.length,
    failed: r.faults.length,
    receipts: r.receipts.map(rel),
    keyless: (keyless?.signed ?? []).map((k) => ({
      receipt: path.basename(k.receipt),
      bundle: path.basename(k.bundle),
      identity: k.identity,
      attestation_id: k.attestation_id,
    })),
    faults: r.faults,
  });
  writeJson(headsFile, heads);
  core.setOutput('verified', r.receipts.length);
  core.setOutput('failed', r.faults.length);
  setBoundedOutput('heads', JSON.stringify(heads), headsFile);
  core.setOutput('heads-file', headsFile);
  core.setOutput('report', reportFile);
  setBoundedOutput('receipts', JSON.stringify(r.receipts.map((x) => x.file)), reportFile);
  const lines = [
    `## stepchain: ${r.faults.length === 0 ? '✅' : '❌'} ${plural(r.receipts.length, 'receipt')} exported`,
    '',
    '| Agent | Steps | Head | Signed | Receipt |',
    '|---|---:|---|---|---|',
    ...r.receipts.map(
      (x) =>
        `| ${mdText(x.agent_id)} | ${x.steps} | ${mdCode(x.head_hash.slice(0, 12))} | ${signedCell(x, bundleOf.get(x.file))} | ${mdCode(path.basename(x.file))}${x.redacted ? ` (redacted: ${mdText(x.redacted.join(', '))})` : ''} |`,
    ),
    '',
    ...r.faults.slice(0, 500).map((f) => `- ❌ ${mdCode(where(f))}: ${mdText(f.message, 500)}`),
    '',
  ];
  await writeSummary(lines.join('\n'));
  if (inputs.uploadArtifact && r.receipts.length > 0) {
    const html = writeHtmlReports(
      r.receipts.map((x) => ({
        kind: 'receipt',
        path: x.file,
        id: x.agent_id,
        steps: x.steps,
        head: x.head_hash,
        ok: true,
        status: 'ok',
      })),
      { root: workspace, outDir: path.join(dir, 'html') },
    );
    for (const w of html.warnings) core.warning(oneLineMessage(w));
    const id = await uploadFiles(
      defaultArtifactName(inputs),
      [...r.receipts.map((x) => x.file), ...[...bundleOf.values()].map((k) => k.bundle), reportFile, ...html.files],
      dir,
    );
    core.setOutput('artifact-id', id);
  }
}

/** The summary's Signed cell: the Ed25519 key and/or the keyless signer. */
function signedCell(
  x: ExportedReceipt,
  k: { identity: string | null; attestation_id: string | null } | undefined,
): string {
  const parts: string[] = [];
  if (x.signed) parts.push(`yes (${mdText(x.key_id ?? '')})`);
  if (k !== undefined)
    parts.push(
      `keyless ${mdCode(k.identity ?? '?')}${k.attestation_id === null ? '' : `, attestation ${mdText(k.attestation_id)}`}`,
    );
  return parts.length === 0 ? 'no' : parts.join('; ');
}
