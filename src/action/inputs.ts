import * as core from '@actions/core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_JOURNALS, DEFAULT_RECEIPTS, DEFAULT_RUNS, parseExpectedHeads, parsePatterns } from '../check';
import { InputError } from '../errors';
import {
  DEFAULT_REDACT,
  parsePrivateKey,
  parsePublicKey,
  parseRedactFields,
  readPublicKeyFile,
  type PublicKey,
  type RedactField,
  type SigningKey,
} from '../receipt';
import { assertSafeId } from '../util/ids';

/** The Action's inputs (action.yml), read and validated once. */
export interface ActionInputs {
  mode: 'verify' | 'export';
  journals: string[];
  runs: string[];
  receipts: string[];
  appendOnly: boolean;
  expectedHeads?: { path: string; heads: Record<string, string> };
  publicKeys: PublicKey[];
  failOnFlaggedMutations: boolean;
  comment: boolean;
  githubToken: string;
  uploadArtifact: boolean;
  artifactName: string;
  agents: string[];
  redact: RedactField[] | null;
  signingKey?: SigningKey;
}

function input(name: string): string {
  return core.getInput(name, { trimWhitespace: true });
}

/** A YAML 1.2 core-schema boolean; an empty input takes the default. */
function bool(name: string, dflt: boolean): boolean {
  const v = input(name);
  if (v === '') return dflt;
  if (['true', 'True', 'TRUE'].includes(v)) return true;
  if (['false', 'False', 'FALSE'].includes(v)) return false;
  throw new InputError(`input ${name}: ${JSON.stringify(v)} is not true or false`);
}

function patterns(name: string, dflt: string): string[] {
  const v = input(name);
  return parsePatterns(v === '' ? dflt : v);
}

/** Repository-relative path inside the workspace (refuses escaping it). */
function inWorkspace(workspace: string, p: string, what: string): string {
  const abs = path.resolve(workspace, p);
  const rel = path.relative(workspace, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new InputError(`input ${what}: ${p} is outside the workspace`);
  return abs;
}

function readExpectedHeads(workspace: string, p: string): { path: string; heads: Record<string, string> } {
  const abs = inWorkspace(workspace, p, 'expected-heads');
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch (e) {
    throw new InputError(
      `input expected-heads: ${p}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  const heads = parseExpectedHeads(bytes, `input expected-heads: ${p}`);
  return { path: path.relative(workspace, abs).split(path.sep).join('/'), heads };
}

const PEM_BLOCK = /-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g;

/** Newline-separated PEM blocks and/or key file paths (relative to the workspace). */
export function parsePublicKeys(text: string, workspace: string): PublicKey[] {
  const keys: PublicKey[] = [];
  let n = 0;
  for (const m of text.match(PEM_BLOCK) ?? [])
    keys.push(parsePublicKey(Buffer.from(`${m}\n`), `public-keys (PEM block ${++n})`));
  for (const line of text.replace(PEM_BLOCK, '').split(/\r?\n/)) {
    const p = line.trim();
    if (p === '') continue;
    const abs = inWorkspace(workspace, p, 'public-keys');
    if (!existsSync(abs))
      throw new InputError(`input public-keys: ${p}: no such key file (give PEM blocks or key file paths)`);
    keys.push(readPublicKeyFile(abs));
  }
  return keys;
}

/** A PEM PKCS#8 key or a base64 32-byte seed; masked in the log before anything else. */
export function parseSigningKey(text: string): SigningKey {
  // The runner masks line by line: a PEM's base64 lines are masked one by one.
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length >= 8 && !l.includes('-----'));
  if (lines.length <= 1) core.setSecret(text.trim());
  else for (const line of lines) core.setSecret(line);
  if (text.includes('-----BEGIN')) return parsePrivateKey(Buffer.from(`${text.trim()}\n`), 'input signing-key');
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact))
    throw new InputError('input signing-key: neither a PEM private key nor a base64 seed');
  const seed = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (seed.length !== 32)
    throw new InputError(`input signing-key: a base64 seed must decode to 32 bytes, got ${seed.length}`);
  return parsePrivateKey(seed, 'input signing-key');
}

function redactInput(): RedactField[] | null {
  const v = input('redact');
  if (v === '' || v === 'false') return null;
  if (v === 'true') return [...DEFAULT_REDACT];
  return parseRedactFields(
    v
      .split(/[\s,]+/)
      .filter(Boolean)
      .join(','),
  );
}

export function readInputs(workspace: string): ActionInputs {
  const mode = input('mode') || 'verify';
  if (mode !== 'verify' && mode !== 'export')
    throw new InputError(`input mode: ${JSON.stringify(mode)} is not verify or export`);
  const signing = input('signing-key');
  const keys = input('public-keys');
  const heads = input('expected-heads');
  const inputs: ActionInputs = {
    mode,
    journals: patterns('journals', DEFAULT_JOURNALS),
    runs: patterns('runs', DEFAULT_RUNS),
    receipts: patterns('receipts', DEFAULT_RECEIPTS),
    appendOnly: bool('append-only', true),
    publicKeys: keys === '' ? [] : parsePublicKeys(keys, workspace),
    failOnFlaggedMutations: bool('fail-on-flagged-mutations', true),
    comment: bool('comment', false),
    githubToken: input('github-token'),
    uploadArtifact: bool('upload-artifact', mode === 'export'),
    artifactName: input('artifact-name') || 'stepchain-receipts',
    agents: input('agents')
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((a) => assertSafeId(a, 'agent id')),
    redact: redactInput(),
  };
  if (inputs.githubToken !== '') core.setSecret(inputs.githubToken);
  if (heads !== '') inputs.expectedHeads = readExpectedHeads(workspace, heads);
  if (signing !== '') inputs.signingKey = parseSigningKey(signing);
  return inputs;
}
