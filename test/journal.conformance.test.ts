import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonObject } from '../src/canonical';
import { computeStepHash, stepPayload, verifyJournalFile, type StepFields } from '../src/journal';
import { conformanceDir } from './helpers/paths';
import { verifiedClean } from './helpers/journal-rows';

describe('step-hash.jsonl vectors', () => {
  const vectors = readFileSync(path.join(conformanceDir, 'step-hash.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => parse(l) as JsonObject);
  it('has vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(3));
  it.each(vectors.map((v, i) => [i, v]))('vector %i: payload and hash', (_i, v) => {
    const fields = v.fields as unknown as StepFields;
    expect(stepPayload(fields, true)).toBe(v.canonical_payload);
    expect(computeStepHash(fields, true)).toBe(v.step_hash);
  });
});

describe('the reference journal', () => {
  const expected = JSON.parse(readFileSync(path.join(conformanceDir, 'reference-expected.json'), 'utf8')) as {
    journal_head: string;
    steps: number;
  };
  const file = path.join(conformanceDir, 'reference-journal', '000000.jsonl');
  it('verifies with the expected head and step count, strictly canonical', () => {
    const r = verifyJournalFile(file, { expectedHead: expected.journal_head, strict: true });
    expect(r).toEqual(verifiedClean(expected.journal_head, expected.steps));
  });
  it('reports a head mismatch against another expectation', () => {
    const r = verifyJournalFile(file, { expectedHead: '1'.repeat(64) });
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([
      { line: null, kind: 'head_mismatch', message: expect.stringContaining(expected.journal_head) },
    ]);
  });
});
