/**
 * The documentation against the product, for the claims a machine can check: every relative link and anchor of the
 * Markdown points at something; the README's command table names every command with exactly the options it takes
 * (and `--help`'s synopsis lists every option); a command line written anywhere in the docs uses only options its
 * command has; the Action's input defaults in the README and docs/action.md are action.yml's; every environment
 * variable stepchain reads is documented. A new option, input or variable is documented, or this fails.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { commands } from '../src/cli/commands';
import type { Command } from '../src/cli/command';
import { readActionYml } from './helpers/action';
import { repoRoot } from './helpers/paths';

const read = (rel: string): string => readFileSync(path.join(repoRoot, rel), 'utf8');
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const withoutFences = (md: string): string => md.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped (code spans are text), spaces to hyphens. */
function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(rel: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(read(rel)).matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const s = slug(m[1]!);
    const n = seen.get(s);
    seen.set(s, (n ?? -1) + 1);
    out.add(n === undefined ? s : `${s}-${n + 1}`);
  }
  return out;
}

test('every relative link and anchor in the docs points at something', () => {
  const broken: string[] = [];
  for (const doc of DOCS) {
    for (const m of withoutFences(read(doc)).matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/i.test(link)) continue;
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file === '' ? doc : path.normalize(path.join(path.dirname(doc), file));
      if (!existsSync(path.join(repoRoot, target))) broken.push(`${doc}: ${link} (no ${target})`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor))
        broken.push(`${doc}: ${link} (no heading #${anchor} in ${target})`);
    }
  }
  expect(broken).toEqual([]);
});

const nameOf = (c: Command): string => c.name.join(' ');
/** The options a text names (`--name`), `-o` as `output`. */
const optionsIn = (text: string): string[] =>
  [...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)]
    .map((m) => m[1]!)
    .concat(/(?<![\w-])-o\b/.test(text) ? ['output'] : []);

test("every command's usage line (the synopsis --help prints) names every option it takes", () => {
  for (const c of commands) {
    const named = new Set(optionsIn(c.usage));
    for (const o of Object.keys(c.options)) expect([nameOf(c), o, named.has(o)]).toEqual([nameOf(c), o, true]);
  }
});

test("README's command table: every command, each row with exactly its command's options", () => {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('### Commands'), readme.indexOf('\n## ', readme.indexOf('### Commands')));
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| `stepchain '))
    // The first cell (up to the first unescaped ` | `), its code spans joined: `a` / `b` stays `a / b`.
    .map((l) => /^\| ((?:[^|\\]|\\.)*?) \|/.exec(l)![1]!.replace(/`/g, '').replace(/\\\|/g, '|'));
  // A row names one command (`stepchain fork rm ...`), or several (`stepchain init codex` / `stepchain hook codex`,
  // `stepchain run record|capability|...`): those are described in the doc the row links.
  const longestFirst = [...commands].sort((a, b) => b.name.length - a.name.length);
  const covered = new Set<string>();
  for (const row of rows) {
    const parts = row.split(' / ').map((p) => p.replace(/^(stepchain )?/, 'stepchain '));
    const named = parts.flatMap((p) => {
      const [group, alts] = /^stepchain (\w+) ([a-z|]+)\b/.exec(p)?.slice(1) ?? [];
      const heads = alts?.includes('|') ? alts.split('|').map((a) => `stepchain ${group} ${a}`) : [p];
      return heads.map((h) => longestFirst.find((c) => `${h} `.startsWith(`stepchain ${nameOf(c)} `)));
    });
    expect([row, named.includes(undefined)]).toEqual([row, false]);
    for (const c of named) covered.add(nameOf(c!));
    if (named.length !== 1) continue;
    const c = named[0]!;
    expect([row, [...new Set(optionsIn(row))].sort()]).toEqual([row, Object.keys(c.options).sort()]);
  }
  expect(commands.map(nameOf).filter((n) => !covered.has(n))).toEqual([]);
});

test("a stepchain command line anywhere in the docs (and in --help's examples) uses only options its command has", () => {
  const longestFirst = [...commands].sort((a, b) => b.name.length - a.name.length);
  const wrong: string[] = [];
  const examples = commands.flatMap((c) => (c.examples ?? []).map((e) => e.run)).join('\n');
  for (const [doc, text] of [...DOCS.map((d): [string, string] => [d, read(d)]), ['--help examples', examples]]) {
    text.split('\n').forEach((line, i) => {
      // Up to the end of the command: a code span's end, a pipe, `;`, `&&`, a comment, or `--` before a child.
      for (const m of line.matchAll(/\bstepchain ([a-z][a-z-]*(?: [a-z][a-z-]*)?)([^`|;&#\n]*)/g)) {
        const words = m[1]!.split(' ');
        const c = longestFirst.find((x) => x.name.every((w, k) => words[k] === w));
        if (c === undefined) continue; // prose: "stepchain reads ..."
        const rest = `${words.slice(c.name.length).join(' ')}${m[2]!}`.split(/ -- /)[0]!;
        for (const o of optionsIn(rest))
          if (o !== 'help' && !(o in c.options)) wrong.push(`${doc}:${i + 1}: stepchain ${nameOf(c)} --${o}`);
      }
    });
  }
  expect(wrong).toEqual([]);
});

test("the Action's input defaults in README.md and docs/action.md are action.yml's", () => {
  const yml = readActionYml();
  for (const doc of ['README.md', 'docs/action.md']) {
    const lines = read(doc).split('\n');
    for (const [name, spec] of Object.entries(yml.inputs)) {
      const row = lines.find((l) => l.startsWith(`| \`${name}\` |`));
      const cell = row?.split(' | ')[1]?.trim() ?? '';
      // A declared default is what the table says, in backquotes; no declared default: the table says what the code
      // chooses (e.g. "`false` in verify and gather mode, ...") or nothing, but never a different backquoted value alone.
      if (spec.default !== undefined && spec.default !== '')
        expect([doc, name, cell]).toEqual([doc, name, `\`${spec.default}\``]);
      else expect([doc, name, /^`[^`]*`$/.test(cell)]).toEqual([doc, name, false]);
    }
  }
});

test('every STEPCHAIN_ environment variable the sources read is documented', () => {
  const docs = DOCS.map(read).join('\n');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );
  const read_ = new Set<string>();
  for (const f of walk(path.join(repoRoot, 'src')))
    for (const m of readFileSync(f, 'utf8').matchAll(/\b(STEPCHAIN_[A-Z0-9_]+)\b/g)) read_.add(m[1]!);
  expect([...read_].filter((v) => !docs.includes(v)).sort()).toEqual([]);
});

test('every doc and workflow uses one version of each action (the one test/action.yml.test.ts holds current)', () => {
  const sources = [
    ...DOCS,
    ...readdirSync(path.join(repoRoot, '.github', 'workflows')).map((f) => `.github/workflows/${f}`),
  ];
  const versions = new Map<string, Set<string>>();
  for (const rel of sources)
    for (const m of read(rel).matchAll(/uses: ([\w.-]+\/[\w.-]+)@(v\d+)\b/g)) {
      if (m[1] === 'stepchain/stepchain' && m[2] === 'vX') continue;
      versions.set(m[1]!, (versions.get(m[1]!) ?? new Set()).add(`${m[2]!} (${rel})`));
    }
  const split = [...versions].filter(([, v]) => new Set([...v].map((x) => x.split(' ')[0])).size > 1);
  expect(split.map(([a, v]) => `${a}: ${[...v].join(', ')}`)).toEqual([]);
});

test('no code span of the docs is a bare line break (an escape such as `\\n` written as the character itself)', () => {
  const found = DOCS.flatMap((doc) =>
    withoutFences(read(doc))
      .split(/\n\n/)
      // Code spans paired left to right, as Markdown pairs single backquotes.
      .filter((para) => [...para.matchAll(/`([^`]*)`/g)].some((m) => m[1]!.includes('\n') && m[1]!.trim() === ''))
      .map((para) => `${doc}: ${para.slice(0, 80)}`),
  );
  expect(found).toEqual([]);
});

test('every agent version the docs name is the one the tests pin (test/agents/versions.json)', () => {
  const pinned = JSON.parse(read('test/agents/versions.json')) as Record<string, { package: string; version: string }>;
  const names: [RegExp, string][] = [
    [/Claude Code/, 'claude'],
    [/Codex(?: CLI)?/, 'codex'],
    [/Gemini CLI/, 'gemini'],
    [/(?:GitHub )?Copilot CLI/, 'copilot'],
    [/OpenCode/, 'opencode'],
    ...Object.entries(pinned).map(([k, v]): [RegExp, string] => [new RegExp(`\`?${v.package}\`?`), k]),
  ];
  const wrong: string[] = [];
  for (const doc of DOCS.filter((d) => d !== 'CHANGELOG.md'))
    for (const [re, agent] of names)
      for (const m of read(doc).matchAll(new RegExp(`(?:${re.source}) v?(\\d+\\.\\d+\\.\\d+)\\b`, 'g')))
        if (m[1] !== pinned[agent]!.version) wrong.push(`${doc}: ${m[0]} (pinned ${pinned[agent]!.version})`);
  expect(wrong).toEqual([]);
});
