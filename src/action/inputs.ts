import * as core from '@actions/core';
import { DEFAULT_JOURNALS, DEFAULT_RECEIPTS, DEFAULT_RUNS, parsePatterns } from '../check';
import { parseProvenancePolicy, type ProvenancePolicy } from '../check/provenance';
import { InputError } from '../errors';
import { DEFAULT_REDACT, parsePrivateKey, parseRedactFields, type RedactField, type SigningKey } from '../receipt';
import { assertSafeId } from '../util/ids';

/**
 * The Action's inputs (action.yml), read and validated once. Every input the
 * code reads is named in ACTION_INPUTS and nowhere else; the suite checks that
 * this list and action.yml's `inputs` are the same set. Trust anchors
 * (`public-keys`, `expected-heads`) are only taken as text here: which commit a
 * named file is read from depends on the event (src/action/anchors.ts).
 */
export const ACTION_INPUTS = [
  'mode',
  'journals',
  'runs',
  'receipts',
  'if-no-files-found',
  'append-only',
  'expected-heads',
  'public-keys',
  'fail-on-flagged-mutations',
  'provenance',
  'comment',
  'github-token',
  'upload-artifact',
  'artifact-name',
  'agents',
  'redact',
  'signing-key',
  'allow-unsigned',
  'shard-index',
  'shard-count',
  'reports',
  'keyless',
  'attest',
  'fulcio-url',
  'rekor-url',
  'tsa-url',
  'keyless-identities',
  'keyless-issuer',
  'trusted-root',
] as const;

export type InputName = (typeof ACTION_INPUTS)[number];

export type Mode = 'verify' | 'export' | 'gather';
export type IfNoFilesFound = 'error' | 'warn' | 'ignore';

/** A `journals`/`runs`/`receipts` input: its patterns (null: switched off with `none`) and whether the user set it. */
export interface PatternInput {
  patterns: string[] | null;
  explicit: boolean;
}

export interface ActionInputs {
  mode: Mode;
  journals: PatternInput;
  runs: PatternInput;
  receipts: PatternInput;
  ifNoFilesFound: IfNoFilesFound;
  appendOnly: boolean;
  /** Raw: a path (read from the base commit on a PR) or an inline JSON object. */
  expectedHeads: string;
  /** Raw: PEM blocks and/or key file paths (read from the base commit on a PR). */
  publicKeys: string;
  failOnFlaggedMutations: boolean;
  /** Unrecorded changed files: not looked for, warnings, or errors (docs/provenance.md). */
  provenance: ProvenancePolicy;
  comment: boolean;
  githubToken: string;
  uploadArtifact: boolean;
  /** Empty: the mode's default name. */
  artifactName: string;
  agents: string[];
  redact: RedactField[] | null;
  signingKey?: SigningKey;
  allowUnsigned: boolean;
  shard: { index: number; count: number };
  reports: string[];
  /** Export: sign each receipt keylessly through Sigstore (R.sigstore.json beside it). */
  keyless: boolean;
  /** Export: also store each bundle through GitHub's attestations API. */
  attest: boolean;
  /** Export: Sigstore service URLs (empty: chosen by the repository's visibility). */
  sigstoreURLs: { fulcio: string; rekor: string; tsa: string };
  /** Verify: raw keyless anchors (identities inline or files read from the base commit; a root file). */
  keylessIdentities: string;
  keylessIssuer: string;
  trustedRoot: string;
}

export const DEFAULT_REPORTS = 'stepchain-reports/**/report.json';

function input(name: InputName): string {
  return core.getInput(name, { trimWhitespace: true });
}

/** A YAML 1.2 core-schema boolean; an empty input takes the default. */
function bool(name: InputName, dflt: boolean): boolean {
  const v = input(name);
  if (v === '') return dflt;
  if (['true', 'True', 'TRUE'].includes(v)) return true;
  if (['false', 'False', 'FALSE'].includes(v)) return false;
  throw new InputError(`input ${name}: ${JSON.stringify(v)} is not true or false`);
}

function patterns(name: InputName, dflt: string): PatternInput {
  const v = input(name);
  if (v === 'none') return { patterns: null, explicit: true };
  const list = parsePatterns(v === '' ? dflt : v);
  const dfltList = parsePatterns(dflt);
  const explicit = v !== '' && (list.length !== dfltList.length || list.some((p, i) => p !== dfltList[i]));
  return { patterns: list, explicit };
}

function integer(name: InputName, dflt: number, min: number, max: number): number {
  const v = input(name);
  if (v === '') return dflt;
  if (!/^[0-9]{1,6}$/.test(v) || Number(v) < min || Number(v) > max)
    throw new InputError(`input ${name}: ${JSON.stringify(v)} is not a whole number from ${min} to ${max}`);
  return Number(v);
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

export function readInputs(): ActionInputs {
  // Secrets first: masked before anything else can print them.
  const token = input('github-token');
  if (token !== '') core.setSecret(token);
  const signing = input('signing-key');
  const mode = input('mode') || 'verify';
  if (mode !== 'verify' && mode !== 'export' && mode !== 'gather')
    throw new InputError(`input mode: ${JSON.stringify(mode)} is not verify, export or gather`);
  const ifNone = input('if-no-files-found') || 'warn';
  if (ifNone !== 'error' && ifNone !== 'warn' && ifNone !== 'ignore')
    throw new InputError(`input if-no-files-found: ${JSON.stringify(ifNone)} is not error, warn or ignore`);
  const count = integer('shard-count', 1, 1, 1024);
  const index = integer('shard-index', 0, 0, 1023);
  if (index >= count)
    throw new InputError(`input shard-index: ${index} is not below shard-count ${count} (shard-index counts from 0)`);
  const inputs: ActionInputs = {
    mode,
    journals: patterns('journals', DEFAULT_JOURNALS),
    runs: patterns('runs', DEFAULT_RUNS),
    receipts: patterns('receipts', DEFAULT_RECEIPTS),
    ifNoFilesFound: ifNone,
    appendOnly: bool('append-only', true),
    expectedHeads: input('expected-heads'),
    publicKeys: input('public-keys'),
    failOnFlaggedMutations: bool('fail-on-flagged-mutations', true),
    provenance: parseProvenancePolicy(input('provenance') || 'warn', 'input provenance'),
    comment: bool('comment', false),
    githubToken: token,
    uploadArtifact: bool('upload-artifact', mode === 'export'),
    artifactName: input('artifact-name'),
    agents: input('agents')
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((a) => assertSafeId(a, 'agent id')),
    redact: redactInput(),
    allowUnsigned: bool('allow-unsigned', false),
    shard: { index, count },
    reports: parsePatterns(input('reports') || DEFAULT_REPORTS),
    keyless: bool('keyless', false) || bool('attest', false),
    attest: bool('attest', false),
    sigstoreURLs: { fulcio: input('fulcio-url'), rekor: input('rekor-url'), tsa: input('tsa-url') },
    keylessIdentities: input('keyless-identities'),
    keylessIssuer: input('keyless-issuer') || 'https://token.actions.githubusercontent.com',
    trustedRoot: input('trusted-root'),
  };
  if (signing !== '') inputs.signingKey = parseSigningKey(signing);
  // A keyless signature is a signature: no key is needed then.
  else if (mode === 'export' && !inputs.allowUnsigned && !inputs.keyless)
    throw new InputError(
      'input signing-key is empty (a secret that is not set, or not given to this workflow?): ' +
        'refusing to export unsigned receipts; set allow-unsigned: true to export them unsigned',
    );
  return inputs;
}
