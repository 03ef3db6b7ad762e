import * as core from '@actions/core';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdirs } from '../util/mkdirs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckFault } from '../check';
import type { ActionInputs } from './inputs';
import { annotation, info, oneLineMessage } from './log';
import { plural } from '../util/words';

/** How the Action's modes speak: annotations, the JSON report, the summary and bounded outputs. */

export const MAX_ANNOTATIONS = 10;
/** GitHub's cap on one step output is 1 MB; keep clear of it. */
export const MAX_OUTPUT_BYTES = 1_000_000;

export function where(f: CheckFault): string {
  return f.line === null ? f.path : `${f.path}:${f.line}`;
}

/** Annotations for the first faults (errors within `errorSlots`, warnings within 10); every fault in the log. */
export function annotate(faults: CheckFault[], errorSlots: number): void {
  let errors = 0;
  let warnings = 0;
  for (const f of faults) {
    const props: core.AnnotationProperties = { file: f.path, title: `stepchain: ${f.kind}` };
    if (f.line !== null) props.startLine = f.line;
    if (f.severity === 'error' && errors < errorSlots) {
      annotation('error', f.message, props);
      errors++;
    } else if (f.severity === 'warning' && warnings < MAX_ANNOTATIONS) {
      annotation('warning', f.message, props);
      warnings++;
    }
    info(`${f.severity === 'error' ? 'FAULT' : 'WARNING'} ${where(f)}: ${f.message}`);
  }
  const hidden = faults.filter((f) => f.severity === 'error').length - errors;
  if (hidden > 0) info(`(${hidden} more faults are in the log above, the job summary and the JSON report)`);
}

/** A fresh directory per run under RUNNER_TEMP: two stepchain steps in one job never share files. */
export function reportDir(): string {
  const parent = process.env['RUNNER_TEMP'] || tmpdir();
  mkdirs(parent);
  return mkdtempSync(path.join(parent, 'stepchain-'));
}

export function writeJson(file: string, doc: unknown): void {
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}

export async function writeSummary(markdown: string): Promise<void> {
  if (!process.env['GITHUB_STEP_SUMMARY']) return;
  await core.summary.addRaw(markdown, true).write();
}

/** An output within GitHub's per-output limit; over it, empty and a warning naming the file that has it all. */
export function setBoundedOutput(name: string, value: string, file: string): void {
  if (Buffer.byteLength(value, 'utf8') <= MAX_OUTPUT_BYTES) {
    core.setOutput(name, value);
    return;
  }
  core.setOutput(name, '');
  core.warning(
    oneLineMessage(
      `output ${name}: ${Buffer.byteLength(value, 'utf8')} bytes is over GitHub's 1 MB output limit; ` +
        `it is left empty: read ${file} (output ${name}-file) instead`,
    ),
  );
}

/** `N faults in M files; first: path:line: message` */
export function failureLine(faults: CheckFault[], what: string, extra: string[] = []): string {
  const errors = faults.filter((f) => f.severity === 'error');
  const files = new Set(errors.map((f) => f.path)).size;
  const first = errors[0];
  if (errors.length === 0) return `stepchain: ${what}: ${extra.join('; ')}`;
  return (
    `stepchain: ${what}: ${plural(errors.length, 'fault')} in ${plural(files, 'file')}` +
    (first ? `; first: ${where(first)}: ${first.message}` : '') +
    (extra.length > 0 ? `; ${extra.join('; ')}` : '')
  );
}

export function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0] ?? 'unknown error';
}

/** The artifact's name: the input, else one per mode (and per shard). */
export function defaultArtifactName(inputs: ActionInputs): string {
  if (inputs.artifactName !== '') return inputs.artifactName;
  if (inputs.mode === 'export') return 'stepchain-receipts';
  if (inputs.mode === 'gather') return 'stepchain-report';
  return inputs.shard.count > 1 ? `stepchain-report-${inputs.shard.index}` : 'stepchain-report';
}
