import { mkdirs } from '../util/mkdirs';
import path from 'node:path';
import { InputError, StepchainError } from '../errors';
import { Cas, casDir } from '../journal';
import {
  DEFAULT_MAX_RECEIPT_BYTES,
  exportReceipt,
  publishReceipt,
  type RedactField,
  type SigningKey,
} from '../receipt';
import { bundlePathOf, staleBundleBeside } from '../receipt/keyless/bundle-path';
import { lstatUnder, readUnder } from '../util/nofollow';
import { fileBlobId, type CommittedTest } from './committed';
import { globSet, NOT_UTF8_NAME, scanFiles } from './glob';
import { DEFAULT_JOURNALS, idOfPath } from './scan';
import type { CheckFault } from './types';

/**
 * Receipts for a repository's committed journals, one per agent (the Action's
 * export mode): a full receipt, or a published (redacted) one when fields to
 * redact are given. A journal that does not verify gets no receipt and a fault.
 * Nothing is read through a symbolic link below the root: a linked journal is a
 * fault, and blobs come from the CAS only as regular files (`WorkspaceCas`).
 * It lives beside the check because it finds journals with the check's discovery (globs, links, ids: scan.ts)
 * and reports as the check does (CheckFault); receipt/ sits below the check and never imports it.
 */

/** The checkout's CAS, read without following a link anywhere below the root. */
export class WorkspaceCas extends Cas {
  constructor(private readonly root: string) {
    super(casDir(root), false);
  }

  override has(digest: string): boolean {
    return lstatUnder(this.root, path.relative(this.root, this.pathOf(digest))).kind === 'file';
  }

  override get(digest: string): Buffer | undefined {
    const r = readUnder(this.root, path.relative(this.root, this.pathOf(digest)), DEFAULT_MAX_RECEIPT_BYTES);
    return r.kind === 'file' ? r.bytes : undefined;
  }
}
export interface ExportAllOptions {
  root: string;
  outDir: string;
  journals?: string | string[];
  /** Only these agents (default all found); a named agent with no journal is an input error. */
  agents?: string[];
  signKey?: SigningKey;
  /** Publish with this redaction policy instead of exporting everything. */
  redact?: readonly RedactField[] | null;
  now?: Date;
  /** A keyless signature is written beside each receipt afterwards (the stale-bundle rule then does not apply). */
  keyless?: boolean;
  /** Remove a Sigstore bundle found beside an output (it signed another receipt) rather than refuse that receipt. */
  force?: boolean;
  /** What the caller's user can do about such a bundle (the door's words), for the refusal. */
  staleBundleRemedy?: string;
  /**
   * The commit every journal exported must be held to (./committed.ts): a journal that is not the blob it holds at
   * its path, or lies inside a submodule, gets no receipt (a signing key never signs what the commit does not hold).
   */
  committed?: CommittedTest;
}

export interface ExportedReceipt {
  agent_id: string;
  /** The journal it was made from (repository-relative). */
  journal: string;
  /** The receipt file written. */
  file: string;
  head_hash: string;
  steps: number;
  signed: boolean;
  key_id: string | null;
  /** For a published receipt: the journal's own head and the fields redacted. */
  original_head?: string;
  redacted?: RedactField[];
  /** A stale Sigstore bundle removed from beside it (`force`). */
  removed_bundle?: string;
  /** What the export said and went on (a CAS blob left out as not its digest, a loose signing key): the library's. */
  warnings?: string[];
}

export interface ExportAllResult {
  receipts: ExportedReceipt[];
  faults: CheckFault[];
}

/** Why an agent's journal gets no receipt before it is read: a link, not a regular file, not what the commit holds. */
function unexportable(
  root: string,
  rel: string,
  agent: string,
  committed: CommittedTest | undefined,
): CheckFault | undefined {
  const st = lstatUnder(root, rel);
  const fault = (kind: CheckFault['kind'], why: string): CheckFault => ({
    item: 'journal',
    path: rel,
    line: null,
    kind,
    message: `agent ${agent}: no receipt: ${why}`,
    severity: 'error',
    id: agent,
  });
  if (st.kind === 'symlink') return fault('symlink', `${st.at} is a symbolic link`);
  if (st.kind !== 'file') return fault('unreadable', 'not a regular file');
  const why = committed?.(rel, (hexLength) => fileBlobId(root, rel, hexLength) ?? '');
  return why === undefined ? undefined : fault('not_committed', why);
}

/** An export's warnings, when it has any (a receipt's entry lists them; none: no key). */
const said = (warnings: string[]): { warnings?: string[] } => (warnings.length > 0 ? { warnings } : {});

export function exportAllReceipts(options: ExportAllOptions): ExportAllResult {
  const root = path.resolve(options.root);
  const scan = scanFiles(root, globSet(options.journals ?? DEFAULT_JOURNALS));
  const found = scan.files;
  const byAgent = new Map<string, string>();
  for (const rel of found) if (!byAgent.has(idOfPath(rel))) byAgent.set(idOfPath(rel), rel);
  const agents = options.agents && options.agents.length > 0 ? options.agents : [...byAgent.keys()];
  for (const a of agents) {
    if (!byAgent.has(a))
      throw new InputError(
        `agent ${a}: no journal found (looked for ${[options.journals ?? DEFAULT_JOURNALS].flat().join(', ')})`,
      );
  }
  mkdirs(options.outDir);
  const result: ExportAllResult = { receipts: [], faults: [] };
  for (const l of scan.links) {
    if (l.severity !== 'error') continue;
    result.faults.push({
      item: 'journal',
      path: l.path,
      line: null,
      kind: 'symlink',
      message: `${l.path} is a symbolic link: stepchain never follows a link in the checkout; no receipt`,
      severity: 'error',
    });
  }
  for (const u of scan.unnamed)
    result.faults.push({
      item: 'journal',
      path: u,
      line: null,
      kind: 'unreadable',
      message: `${NOT_UTF8_NAME}, so stepchain cannot open it by name; no receipt`,
      severity: 'error',
    });
  const cas = new WorkspaceCas(root);
  for (const agent of agents) {
    const rel = byAgent.get(agent)!;
    const journal = path.join(root, rel);
    const refused = unexportable(root, rel, agent, options.committed);
    if (refused !== undefined) {
      result.faults.push(refused);
      continue;
    }
    const file = path.join(options.outDir, `${agent}.receipt.tar`);
    const common = {
      agentId: agent,
      ...(options.signKey === undefined ? {} : { signKey: options.signKey }),
      ...(options.now === undefined ? {} : { now: options.now }),
      gzip: false,
      cas,
    };
    try {
      // The stale-bundle rule of every export (bundle-path.ts): refused, or removed once the receipt is written.
      const stale = options.keyless
        ? undefined
        : staleBundleBeside(file, {
            force: options.force === true,
            shown: path.basename(bundlePathOf(file)),
            ...(options.staleBundleRemedy === undefined ? {} : { remedy: options.staleBundleRemedy }),
          });
      const removed = (): { removed_bundle?: string } => {
        if (stale === undefined) return {};
        stale.remove();
        return { removed_bundle: stale.file };
      };
      if (options.redact) {
        const r = publishReceipt(journal, file, { ...common, optIn: true, redact: options.redact });
        result.receipts.push({
          agent_id: agent,
          journal: rel,
          file,
          head_hash: r.published_head,
          steps: r.steps,
          signed: r.signed,
          key_id: r.key_id,
          original_head: r.original_head,
          redacted: r.redacted,
          ...removed(),
          ...said(r.warnings),
        });
      } else {
        // Streamed from the journal to the file (memory does not follow the journal's size).
        const r = exportReceipt(journal, file, common);
        result.receipts.push({
          agent_id: agent,
          journal: rel,
          file,
          head_hash: r.manifest.head_hash,
          steps: r.manifest.steps,
          signed: r.signed,
          key_id: r.key_id,
          ...removed(),
          ...said(r.warnings),
        });
      }
    } catch (e) {
      if (!(e instanceof StepchainError)) throw e;
      // The library names the absolute file and line; annotate at the repository path.
      const m = /:(\d+): /.exec(e.message.replace(journal, rel));
      result.faults.push({
        item: 'journal',
        path: rel,
        line: m ? Number(m[1]) : null,
        kind: e instanceof InputError ? 'input_error' : 'export_refused',
        message: `agent ${agent}: no receipt: ${e.message.split(journal).join(rel)}`,
        severity: 'error',
        id: agent,
      });
    }
  }
  return result;
}
