/**
 * action.yml as a runner loads it (parsed with the `yaml` package, YAML 1.2),
 * and the inputs it declares against the inputs the built Action reads: the
 * reads are recorded by a preloaded proxy over the process environment
 * (test/helpers/record-inputs.cjs) while dist/index.js runs in each mode.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import {
  git,
  inputVar,
  prScenario,
  pullRequestEvent,
  readActionYml,
  requireBuiltAction,
  runAction,
} from './helpers/action';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-action-yml-');

describe('action.yml', () => {
  test('is valid YAML a runner can load: node24, dist/index.js, every input and output described', () => {
    const doc = parseDocument(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8'), { prettyErrors: true });
    expect(doc.errors.map((e) => e.message)).toEqual([]);
    expect(doc.warnings.map((e) => e.message)).toEqual([]);
    const yml = readActionYml();
    expect(yml.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
    expect(existsSync(path.join(repoRoot, yml.runs.main))).toBe(true);
    expect(typeof yml.name).toBe('string');
    for (const [name, spec] of Object.entries(yml.inputs)) {
      expect([name, typeof spec.description]).toEqual([name, 'string']);
      // A runner passes defaults as strings; a YAML boolean or number here would be a different value.
      if (spec.default !== undefined) expect([name, typeof spec.default]).toEqual([name, 'string']);
    }
    for (const [name, spec] of Object.entries(yml.outputs)) {
      expect([name, typeof spec.description]).toEqual([name, 'string']);
      expect(spec.description).not.toContain('\n');
    }
  });

  test('the inputs the built Action reads are exactly the inputs action.yml declares', async () => {
    requireBuiltAction();
    const declared = Object.keys(readActionYml().inputs).sort();
    const { dir, base } = prScenario(path.join(tmp, 'repo'));
    const reads = new Set<string>();
    const runs: [string, Record<string, string>][] = [
      ['verify', {}],
      ['export', { mode: 'export', 'allow-unsigned': 'true', 'upload-artifact': 'false' }],
      ['gather', { mode: 'gather' }],
    ];
    for (const [name, inputs] of runs) {
      const file = path.join(tmp, `reads-${name}.json`);
      await runAction({
        workspace: dir,
        scratch: path.join(tmp, 'scratch'),
        event: pullRequestEvent(base, git(dir, 'rev-parse', 'HEAD')),
        inputs,
        env: {
          NODE_OPTIONS: `--require ${path.join(repoRoot, 'test', 'helpers', 'record-inputs.cjs')}`,
          STEPCHAIN_TEST_INPUT_READS: file,
        },
      });
      for (const r of JSON.parse(readFileSync(file, 'utf8')) as string[]) reads.add(r);
    }
    // Read but not declared: always empty on GitHub. Declared but not read: a silent no-op.
    expect([...reads].sort()).toEqual(declared.map(inputVar).sort());
  });

  test('README and docs/action.md document every input and output', () => {
    const yml = readActionYml();
    for (const doc of ['README.md', 'docs/action.md']) {
      const text = readFileSync(path.join(repoRoot, doc), 'utf8');
      for (const name of [...Object.keys(yml.inputs), ...Object.keys(yml.outputs)])
        expect([doc, name, text.includes(`| \`${name}\` |`)]).toEqual([doc, name, true]);
    }
  });
});
