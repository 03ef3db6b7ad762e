import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { compareCodePoints } from '../src/canonical';

/**
 * Output that lists ids in order lists them in code-point order, the same on every machine. `localeCompare` (what
 * the fork tree, its Mermaid graph, the PR check's forks, the subagent listing and the CLI's suggestions sorted by)
 * follows the process's ICU locale: under da_DK `aa` is the letter å, after `z`, so a fork id `aa…` was drawn last
 * on a Danish machine and first elsewhere. Each order is taken in a child process under that locale.
 */
const repo = path.resolve(__dirname, '..');
const DANISH = { ...process.env, LANG: 'da_DK.UTF-8', LC_ALL: 'da_DK.UTF-8' };

/** What `script` prints (one JSON value), run from the sources under the Danish locale. */
function underDanish(script: string): unknown {
  const r = spawnSync(process.execPath, ['-r', './test/helpers/swc-register.js', '-e', script], {
    cwd: repo,
    env: DANISH,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

const IDS = ['zz3', 'aa1', 'ab2', 'Z5', '_6', '06', 's4'];
const inCodePoints = [...IDS].sort(compareCodePoints);

describe('ids are ordered by code point, whatever the locale', () => {
  it('the locale this test relies on does order them otherwise (else it would prove nothing)', () => {
    expect(
      underDanish(`console.log(JSON.stringify(${JSON.stringify(IDS)}.sort((a, b) => a.localeCompare(b))))`),
    ).not.toEqual(inCodePoints);
  });

  it('the Mermaid graph of a fork tree draws its forks in code-point order', () => {
    const forks = IDS.map((id) => ({ id, parent: 'root', fromStep: 1, label: null }));
    const out = underDanish(
      `const { forkTreeMermaid } = require('./src/forks/mermaid');` +
        `console.log(JSON.stringify(forkTreeMermaid(${JSON.stringify(forks)})))`,
    ) as string;
    const order = IDS.map((id) => [id, out.indexOf(`["${id}`)] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([id]) => id);
    expect(order).toEqual(inCodePoints);
  });

  it("the CLI's suggestions at the same distance come in code-point order", () => {
    const words = ['--aab', '--zab'];
    expect(
      underDanish(
        `const { closest } = require('./src/cli/suggest');console.log(JSON.stringify(closest('--xab', ${JSON.stringify(words)})))`,
      ),
    ).toEqual(['--aab', '--zab']);
  });
});
