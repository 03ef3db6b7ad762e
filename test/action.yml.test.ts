/**
 * action.yml as a runner loads it (parsed with the `yaml` package, YAML 1.2),
 * and the inputs it declares against the inputs the built Action reads: the
 * reads are recorded by a preloaded proxy over the process environment
 * (test/helpers/record-inputs.cjs) while dist/index.js runs in each mode.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { inputVar, prScenario, pullRequestEvent, readActionYml, requireBuiltAction, runAction } from './helpers/action';
import { git } from './helpers/git';
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
        event: pullRequestEvent(base, git(dir, ['rev-parse', 'HEAD'])),
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

  test('every workflow here and in the docs parses, uses current action versions, and passes only declared inputs', () => {
    // The current major versions of GitHub's own actions (checked when this was written; bump together).
    const CURRENT = new Set([
      'actions/checkout@v7',
      'actions/setup-node@v7',
      'actions/upload-artifact@v7',
      'actions/download-artifact@v8',
      'stepchain/stepchain@v1',
      './',
    ]);
    const declared = new Set(Object.keys(readActionYml().inputs));
    type Step = { uses?: string; with?: Record<string, unknown> };
    type Workflow = { jobs: Record<string, { steps: Step[]; strategy?: { 'fail-fast'?: boolean } }> };
    const workflows: [string, Workflow][] = [];
    const dir = path.join(repoRoot, '.github', 'workflows');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yml'))) {
      const doc = parseDocument(readFileSync(path.join(dir, f), 'utf8'));
      expect([f, doc.errors.map((e) => e.message)]).toEqual([f, []]);
      workflows.push([f, doc.toJS() as Workflow]);
    }
    expect(workflows.map(([f]) => f)).toContain('release.yml');
    const pasted: [string, Workflow][] = [];
    for (const md of ['README.md', 'docs/action.md']) {
      const text = readFileSync(path.join(repoRoot, md), 'utf8');
      for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
        const doc = parseDocument(m[1]!);
        expect([md, doc.errors.map((e) => e.message)]).toEqual([md, []]);
        const wf = doc.toJS() as Workflow;
        if (wf && typeof wf === 'object' && 'jobs' in wf) pasted.push([`${md}: ${m[1]!.split('\n')[0]}`, wf]);
      }
    }
    expect(pasted.length).toBeGreaterThanOrEqual(5);
    for (const [where, wf] of [...workflows, ...pasted]) {
      for (const job of Object.values(wf.jobs)) {
        for (const step of job.steps) {
          if (step.uses === undefined) continue;
          expect([where, step.uses, CURRENT.has(step.uses)]).toEqual([where, step.uses, true]);
          if (step.uses !== './' && !step.uses.startsWith('stepchain/')) continue;
          for (const [k, v] of Object.entries(step.with ?? {})) {
            expect([where, k, declared.has(k)]).toEqual([where, k, true]);
            // Works as pasted: no placeholder, no key or heads file that has to exist first.
            expect([where, String(v).includes('<')]).toEqual([where, false]);
            if (where.includes('.md') && (k === 'public-keys' || k === 'expected-heads'))
              expect([where, k, String(v)]).toEqual([
                where,
                k,
                expect.stringMatching(/^\$\{\{ (vars|secrets)\.[A-Z_]+ \}\}$/),
              ]);
          }
        }
      }
    }
    // The sharded workflow: every shard reports, one artifact per shard, and only the gathering job comments.
    const sharded = pasted.find(([w]) => w.startsWith('docs/action.md') && w.includes('sharded'))![1];
    expect(sharded.jobs['verify']!.strategy?.['fail-fast']).toBe(false);
    const stepsWith = Object.values(sharded.jobs).flatMap((j) => j.steps.filter((s) => s.with !== undefined));
    expect(stepsWith.filter((s) => s.with!['comment'] === true)).toHaveLength(1);
    expect(stepsWith.find((s) => s.with!['mode'] === 'gather')).toBeDefined();
  });
});
