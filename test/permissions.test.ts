import { mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent } from '../src/audit/log';
import { casDir, Journal, journalDir } from '../src/journal';
import { recordRunEvent } from '../src/runs/record';
import { cli } from './helpers/cli';
import { tempDir } from './helpers/tmp';

/** What stepchain writes about an agent's work is owner-only; what is meant to be shared is not (docs/journal.md). */
const mode = (p: string): number => statSync(p).mode & 0o777;
const root = tempDir();

test('journals, blobs, run journals and audit logs are created owner-only under a permissive umask', () => {
  const old = process.umask(0o022);
  try {
    mkdirSync(path.join(root, '.sdd'));
    const j = Journal.open(journalDir(root, 'agent'));
    j.append({ input: Buffer.from('secret input'), prompt: 'secret prompt' });
    expect(mode(j.file)).toBe(0o600);
    expect(mode(path.dirname(j.file))).toBe(0o700);
    const blobs = readdirSync(casDir(root), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(blobs.length).toBeGreaterThan(0);
    for (const b of blobs) {
      expect(mode(path.join(b.parentPath, b.name))).toBe(0o600);
      expect(mode(b.parentPath)).toBe(0o700);
    }
    const { file } = recordRunEvent(root, 'r1', 'task_claimed', { ok: true }, { env: { STEPCHAIN_AUDIT: 'off' } });
    expect(mode(file)).toBe(0o600);
    const audit = path.join(root, 'audit');
    appendAuditEvent(audit, Buffer.from('k'.repeat(64)), 'replay.step', {
      actor: 'agent',
      resource_type: 'journal',
      resource_id: 'agent',
    });
    for (const f of readdirSync(audit).filter((f) => f.endsWith('.jsonl')))
      expect(mode(path.join(audit, f))).toBe(0o600);

    // A receipt is for sharing.
    const out = path.join(root, 'agent.tar');
    const e = cli(['export', 'agent', '-o', out, '--root', root]);
    expect(e.code).toBe(0);
    expect(mode(out)).toBe(0o644);
  } finally {
    process.umask(old);
  }
});
