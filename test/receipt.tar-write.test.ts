import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTar, writeTar, type TarWriteMember } from '../src/receipt';
import { python } from './helpers/python';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * Receipts are written with the `tar` package (src/receipt/tar-write.ts). The bytes
 * are pinned: the same members and mtime give the same archive in every run and
 * process, readable by Python's tarfile, GNU tar and our strict reader.
 */
const dir = tempDir('stepchain-tarw-');
const MTIME = 1_767_225_600; // 2026-01-01T00:00:00Z

const members: TarWriteMember[] = [
  { name: 'manifest.json', data: Buffer.from('{"agent_id":"a","steps":1}') },
  { name: 'manifest.sig', data: Buffer.from(`${'A'.repeat(86)}==`) },
  { name: 'journal/000000.jsonl', data: Buffer.from('{"seq":0}\n'.repeat(60)) },
  { name: `blobs/${'ab'.repeat(32)}`, data: Buffer.alloc(512, 7) },
  { name: `blobs/${'cd'.repeat(32)}`, data: Buffer.alloc(0) },
  { name: `blobs/${'ef'.repeat(32)}`, data: Buffer.from(Array.from({ length: 1500 }, (_, i) => i % 256)) },
];

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const field = (h: Buffer, off: number, len: number): string => h.subarray(off, off + len).toString('latin1');

describe('writeTar (node-tar)', () => {
  const bytes = writeTar(members, MTIME);

  it('writes the pinned bytes, the same in another process', () => {
    expect(bytes.length % 10240).toBe(0);
    // A change here means receipts change byte for byte (a tar upgrade, an option): look before re-pinning.
    expect(sha(bytes)).toBe(PINNED_SHA256);
    const script = `require(${JSON.stringify(path.join(repoRoot, 'test', 'helpers', 'swc-register.js'))});
const { writeTar } = require(${JSON.stringify(path.join(repoRoot, 'src', 'receipt', 'tar-write.ts'))});
const members = JSON.parse(process.argv[1]).map(([name, b64]) => ({ name, data: Buffer.from(b64, 'base64') }));
process.stdout.write(writeTar(members, ${MTIME}).toString('base64'));`;
    const arg = JSON.stringify(members.map((m) => [m.name, Buffer.from(m.data).toString('base64')]));
    const r = spawnSync(process.execPath, ['-e', script, arg], { encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(r.stderr).toBe('');
    expect(Buffer.from(r.stdout, 'base64').equals(bytes)).toBe(true);
  });

  it('pins every header field: regular file, 0644, uid/gid 0, no names, one mtime, ustar, no pax', () => {
    let off = 0;
    for (const m of members) {
      const h = bytes.subarray(off, off + 512);
      expect(field(h, 0, 100).replace(/\0+$/, '')).toBe(m.name);
      expect(field(h, 100, 8)).toBe('000644 \0');
      expect(field(h, 108, 8)).toBe('000000 \0');
      expect(field(h, 116, 8)).toBe('000000 \0');
      expect(parseInt(field(h, 124, 12), 8)).toBe(m.data.length);
      expect(parseInt(field(h, 136, 12), 8)).toBe(MTIME);
      expect(field(h, 156, 1)).toBe('0');
      expect(field(h, 257, 8)).toBe('ustar\u000000');
      expect(field(h, 265, 64)).toBe('\0'.repeat(64)); // uname, gname
      expect(field(h, 345, 155)).toBe('\0'.repeat(155)); // no prefix
      off += 512 + Math.ceil(m.data.length / 512) * 512;
    }
    expect(bytes.subarray(off).every((b) => b === 0)).toBe(true);
  });

  it('reads back with our strict reader', () => {
    const read = readTar(bytes);
    expect(read.map((e) => [e.name, e.type, sha(e.data)])).toEqual(members.map((m) => [m.name, 'file', sha(m.data)]));
  });

  it("reads back with Python's tarfile and GNU tar", () => {
    const file = path.join(dir, 'pinned.tar');
    writeFileSync(file, bytes);
    const got = JSON.parse(
      python(
        `import hashlib, json, sys, tarfile
out = []
with tarfile.open(sys.argv[1], 'r:') as t:
    for m in t.getmembers():
        out.append([m.name, m.isreg(), m.size, m.mode, m.uid, m.gid, m.uname, m.gname, m.mtime, m.pax_headers,
                    hashlib.sha256(t.extractfile(m).read()).hexdigest()])
print(json.dumps(out))`,
        '',
        [file],
      ),
    );
    expect(got).toEqual(members.map((m) => [m.name, true, m.data.length, 0o644, 0, 0, '', '', MTIME, {}, sha(m.data)]));
    const gnu = spawnSync('tar', ['-tvf', file], { encoding: 'utf8' });
    expect(gnu.status).toBe(0);
    expect(gnu.stdout.trim().split('\n')).toHaveLength(members.length);
    expect(gnu.stdout).toContain('-rw-r--r-- 0/0');
  });

  it('refuses names it would have to write with pax or prefix headers', () => {
    for (const name of ['x'.repeat(101), 'é.txt', 'a b', '/abs', '']) {
      expect(() => writeTar([{ name, data: Buffer.alloc(1) }], MTIME)).toThrow(/unsupported member name/);
    }
  });
});

const PINNED_SHA256 = 'bb5c4591cb4d508dff800b7d5893b1016805f926ce1df2cfcd7669c49f4743b5';
