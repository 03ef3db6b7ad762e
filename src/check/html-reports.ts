import { writeFileSync } from 'node:fs';
import { mkdirs } from '../util/mkdirs';
import path from 'node:path';
import { IntegrityError, StepchainError } from '../errors';
import { buildUnreadPage, loadReportSource, writeReport, type ReportSource } from '../report';
import { casSource } from '../report/source';
import type { PublicKey } from '../receipt';
import { DEFAULT_MAX_READ_BYTES, lstatUnder, readUnder } from '../util/nofollow';
import type { CheckedItem, CheckFault } from './types';

/**
 * Self-contained HTML reports (src/report) for the per-step journals and receipts
 * of a check, written for an artifact a reviewer downloads and opens offline.
 * Blob embedding is capped lower than the CLI's default to keep artifacts small.
 * A checkout's files are read without following a link (a repository-relative
 * path); an absolute path is a file the Action wrote itself (an exported receipt).
 * It lives beside the check because it renders the check's items (CheckedItem); report/ renders one journal or
 * receipt and never imports the check.
 *
 * A page renders only bytes the check read and judged: an item it could not read (status `unreadable`: not what the
 * commit holds, `not_committed`, a link, too large) is never rendered from the checkout, whose bytes a pull request
 * controls where they differ from its commit (a .gitattributes conversion, a submodule). Its page says so, with
 * what the check said of it, and holds nothing of the file.
 */

function sourceOf(i: CheckedItem, root: string, publicKeys: PublicKey[]): ReportSource {
  if (path.isAbsolute(i.path)) return loadReportSource(i.path, root, { publicKeys });
  if (i.kind === 'receipt') {
    const st = lstatUnder(root, i.path);
    if (st.kind !== 'file')
      throw new IntegrityError(st.kind === 'symlink' ? `${st.at} is a symbolic link` : 'not a regular file');
    return loadReportSource(path.join(root, i.path), root, { publicKeys });
  }
  const r = readUnder(root, i.path);
  if (r.kind === 'too_large')
    throw new IntegrityError(`${r.size} bytes: more than the ${DEFAULT_MAX_READ_BYTES} a report reads whole`);
  if (r.kind !== 'file')
    throw new IntegrityError(r.kind === 'symlink' ? `${r.at} is a symbolic link` : 'not a regular file');
  return { kind: 'journal', path: i.path, agentId: i.id, journal: r.bytes, blobs: casSource(root) };
}
export interface HtmlReportsOptions {
  /** The repository root the items' paths are relative to. */
  root: string;
  outDir: string;
  /** At most this many reports (default 100). */
  limit?: number;
  maxTotalBlobBytes?: number;
  /** The check's trusted keys: a receipt's page says what the check said of its signature. */
  publicKeys?: PublicKey[];
  /** The check's faults: the page of an item it could not read says why (`not_committed`: not committed). */
  faults?: readonly CheckFault[];
}

/** The page of an item the check did not read: what it said of the file, nothing of the file's bytes. */
function unreadPage(i: CheckedItem, faults: readonly CheckFault[]): string {
  const said = faults.filter((f) => f.path === i.path && f.severity === 'error');
  const notCommitted = said.some((f) => f.kind === 'not_committed');
  const heading = notCommitted
    ? 'Not committed: this file is not what the commit holds at its path, so its checked-out bytes are no record ' +
      'and nothing of them is shown.'
    : 'Not read: the check could not read this file, so nothing of it is shown.';
  return buildUnreadPage(
    `stepchain: ${i.path}`,
    heading,
    said.map((f) => `${f.kind}: ${f.message}`),
  );
}

export interface HtmlReports {
  files: string[];
  /** One line per report that could not be written. */
  warnings: string[];
}

export function writeHtmlReports(items: CheckedItem[], options: HtmlReportsOptions): HtmlReports {
  const out: HtmlReports = { files: [], warnings: [] };
  const wanted = items.filter((i) => (i.kind === 'journal' || i.kind === 'receipt') && i.status !== 'deleted');
  const limit = options.limit ?? 100;
  if (wanted.length > limit)
    out.warnings.push(`HTML reports: ${wanted.length - limit} of ${wanted.length} left out (limit ${limit})`);
  if (wanted.length > 0) mkdirs(options.outDir);
  const used = new Set<string>();
  for (const i of wanted.slice(0, limit)) {
    let name = `${i.kind}-${i.id.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
    for (let n = 2; used.has(name); n++) name = `${i.kind}-${i.id.replace(/[^A-Za-z0-9_.-]/g, '_')}-${n}`;
    used.add(name);
    const file = path.join(options.outDir, `${name}.html`);
    try {
      if (i.status === 'unreadable') {
        writeFileSync(file, unreadPage(i, options.faults ?? []));
        out.files.push(file);
        continue;
      }
      writeReport(sourceOf(i, options.root, options.publicKeys ?? []), file, {
        root: options.root,
        force: true,
        maxTotalBlobBytes: options.maxTotalBlobBytes ?? 2 * 1024 * 1024,
        title: `stepchain: ${i.path}`,
      });
      out.files.push(file);
    } catch (e) {
      if (!(e instanceof StepchainError)) throw e;
      out.warnings.push(`HTML report for ${i.path}: ${e.message}`);
    }
  }
  return out;
}
