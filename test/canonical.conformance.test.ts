import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalOfRead, parse } from '../src/canonical';
import { conformanceDir } from './helpers/paths';

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const lines = (file: string): Record<string, unknown>[] =>
  readFileSync(path.join(conformanceDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('canonical-json.jsonl vectors', () => {
  const vectors = lines('canonical-json.jsonl');
  it('has vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(15));
  it.each(vectors.map((v) => [v.name as string, v]))('%s', (_name, v) => {
    const out = canonicalOfRead(parse(v.source as string));
    expect(out).toBe(v.canonical);
    expect(sha256(out)).toBe(v.sha256);
  });
});
