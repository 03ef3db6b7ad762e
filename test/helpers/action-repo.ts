import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Journal, journalFile } from '../../src/journal';
import { commitAll, emptyRepo, git } from './git';
import { repoRoot } from './paths';

/**
 * Real git repositories with journals, action.yml and event payloads, for the
 * Action's tests: the ones that run the built bundle (helpers/action.ts) and the
 * in-process ones (helpers/action-core.ts) alike.
 */
/** action.yml as a runner reads it (YAML 1.2, the `yaml` package). */
export interface ActionYml {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

export function readActionYml(): ActionYml {
  return parseYaml(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8')) as ActionYml;
}

/** The token the runner gives `${{ github.token }}` in these tests. */
export const RUNNER_TOKEN = 'ghs_runner_token_0123456789';

/** `INPUT_<NAME>` as the runner spells it (spaces to underscores, upper case; hyphens kept). */
export function inputVar(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** An event payload from test/fixtures/events with its placeholders filled in. */
export function eventFixture(
  name: 'pull_request' | 'pull_request_target' | 'push' | 'push-forced' | 'push-new-branch' | 'merge_group',
  vars: { base?: string; head?: string; before?: string },
): { name: string; payload: unknown } {
  let text = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'events', `${name}.json`), 'utf8');
  text = text
    .replace(/__BASE__/g, vars.base ?? '')
    .replace(/__HEAD__/g, vars.head ?? '')
    .replace(/__BEFORE__/g, vars.before ?? '');
  return { name: name.replace(/-.*$/, ''), payload: JSON.parse(text) as unknown };
}

export function pullRequestEvent(base: string, head: string): { name: string; payload: unknown } {
  return eventFixture('pull_request', { base, head });
}

/** The pull_request event of the branch checked out in `dir` (its HEAD) against `base`. */
export function prEvent(dir: string, base: string): { name: string; payload: unknown } {
  return pullRequestEvent(base, git(dir, ['rev-parse', 'HEAD']));
}

// --- Repositories with journals ---------------------------------------------------------

/** Appends `count` steps to an agent's journal under `root` (through the library, as an agent would). */
export function appendSteps(root: string, agent: string, count: number, tag = 'x'): void {
  const j = Journal.open(path.dirname(journalFile(root, agent)), { durability: 'none' });
  const start = j.length;
  j.appendMany(
    Array.from({ length: count }, (_, i) => ({
      input: Buffer.from(`${agent} input ${start + i}`),
      model: 'test-model',
      prompt: `${tag} prompt ${start + i}`,
      tool_call: { name: 'sh', args: ['echo', start + i] },
      tool_result: `${tag} result ${start + i}`,
      ts: 1_700_000_000.25 + start + i,
    })),
  );
}

/** The journal path of an agent, repository-relative. */
export function journalPath(agent: string): string {
  return `.sdd/runtime/journal/${agent}/000000.jsonl`;
}

/**
 * A repository whose `main` has alice (5 steps) and bob (3 steps), checked out on a new branch `pr`. Made once per
 * parent directory and copied (five git processes a scenario saved): the same bytes and commits as made anew, since
 * a commit made in the same second by the same test identity of the same files is the same commit anyway.
 */
export function prScenario(dir: string): { dir: string; base: string } {
  const parent = path.dirname(dir);
  let template = prTemplates.get(parent);
  if (template === undefined) {
    template = makePrScenario(path.join(parent, '.pr-scenario-template'));
    prTemplates.set(parent, template);
  }
  cpSync(template.dir, dir, { recursive: true, verbatimSymlinks: true });
  return { dir, base: template.base };
}
const prTemplates = new Map<string, { dir: string; base: string }>();

function makePrScenario(dir: string): { dir: string; base: string } {
  emptyRepo(dir);
  appendSteps(dir, 'alice', 5);
  appendSteps(dir, 'bob', 3);
  const base = commitAll(dir, 'base journals');
  git(dir, ['checkout', '-q', '-b', 'pr']);
  return { dir, base };
}
