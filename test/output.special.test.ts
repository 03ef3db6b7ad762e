/**
 * `--force` replaces an output file (or a link in its place, never written through), never a FIFO, a socket or a
 * device: the rename replaced the node itself, so `export -o /dev/null --force` run as root replaced the system's
 * /dev/null with a receipt. Each writer (export, publish, report) refuses, exit 2, naming the path, and leaves the node
 * and nothing else behind. (A FIFO and a socket stand in for a device, which only root can make.)
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, symlinkSync, type Stats, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-out-special-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key') };
const journal = path.join(dir, 'run.jsonl');
const fifo = path.join(dir, 'out.fifo');
const sock = path.join(dir, 'out.sock');
/** A link to a FIFO: as /dev/stdout is a link (to /proc/self/fd/1), which --force run as root replaced. */
const link = path.join(dir, 'out.link');
let server: net.Server;

beforeAll(async () => {
  writeFileSync(journal, '');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  symlinkSync(fifo, link);
  server = net.createServer();
  await new Promise<void>((resolve) => server.listen(sock, resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe.each([
  ['a FIFO', fifo, (st: Stats) => st.isFIFO()],
  ['a socket', sock, (st: Stats) => st.isSocket()],
  ['a symbolic link to a FIFO', link, (st: Stats) => st.isSymbolicLink()],
])('%s in the output name', (kind, out, still) => {
  test.each([
    ['export', ['export', journal, '-o', out, '--force']],
    ['publish', ['publish', journal, '-o', out, '--force', '--opt-in']],
    ['report', ['report', journal, '-o', out, '--force']],
    ['export without --force', ['export', journal, '-o', out]],
  ])('%s --force: exit 2 naming it; it is left as it was', async (_name, argv) => {
    const before = readdirSync(dir).sort();
    const r = await cliInProcess(argv, { cwd: dir, input: '', env: ENV });
    expectNoStack(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${out}: is ${kind}, not a regular file; refusing to replace it`);
    expect(still(lstatSync(out))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
