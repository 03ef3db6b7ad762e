import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { tempDir } from './helpers/tmp';

// Review of the snapshot's pipe-less add (src/git/exec.ts gitRunQuiet): what it does where the piped run
// (gitStream) rejected. Each case runs in a child process of its own, so that an exception thrown out of a child
// process's event (which ends a process) is seen as such and does not end the test worker.

const repo = path.resolve(__dirname, '..');
const tmp = tempDir('stepchain-review64-');

/** What `script` printed and how its process ended, run from the sources. */
function fromSources(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['-r', './test/helpers/swc-register.js', '-e', script], {
    cwd: repo,
    env: process.env,
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('a git that cannot be started (its directory gone): the quiet run rejects as the piped run does, once', () => {
  // Node emits 'error' and then 'close' for a process it could not start: the scratch file was closed twice
  // (EBADF thrown out of the 'close' event, the process ended before the promise's rejection was seen).
  const script = `
    const { gitRun, gitRunQuiet } = require('./src/git/exec');
    const missing = ${JSON.stringify(path.join(tmp, 'missing'))};
    const said = (p) => p.then(() => 'resolved', (e) => e.name + ' ' + e.status + ' ' + e.message);
    (async () => {
      const piped = await said(gitRun(missing, ['status'], { readNamed: () => '' }));
      const quiet = await said(gitRunQuiet(missing, ['status'], ${JSON.stringify(tmp)}, { readNamed: () => '' }));
      console.log(JSON.stringify({ piped, quiet }));
    })();
  `;
  const r = fromSources(script);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(JSON.parse(r.stdout)).toEqual({
    piped: 'GitCommandError null git status: spawn git ENOENT',
    quiet: 'GitCommandError null git status: spawn git ENOENT',
  });
});
