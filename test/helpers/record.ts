import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonValue } from '../../src/canonical';
import { Cas, casDir, journalFile, readVerifiedJournal, type JournalEntry } from '../../src/journal';
import { readRunJournalFile, runJournalFile, type ReadRunJournal } from '../../src/runs';
import { sha256Hex } from '../../src/util/hash';
import { withAgentTmp } from './agents';
import { expectNoStack } from './cli';
import { cliInProcess } from './cli-in-process';
import { initRepo } from './git';
import { cliPath } from './paths';
import { tempDir } from './tmp';

/**
 * A project repository at `dir` (a README committed) whose git knows who commits, as a user's does: its own
 * `.git/config` names one (written as a file, not by two `git config` processes). Without it, every snapshot the
 * record and the hooks took went git's slow way, the one for a machine with no identity (a bare CI runner,
 * src/git/snapshot.ts): `add`, `write-tree`, a `commit-tree` refused for want of an identity, another with
 * stepchain's, `update-ref`, five git processes a step where a project with an identity needs `add` alone (the
 * tree, the commit and the ref are written as loose objects, src/git/loose.ts). That fallback has tests of its own
 * (git.snapshot, git.loose); these run the agents as their users do.
 */
export function identifiedProject(dir: string): string {
  const root = initRepo(dir, { 'README.md': '# project\n' });
  appendFileSync(path.join(root, '.git', 'config'), '[user]\n\tname = Test User\n\temail = user@stepchain.invalid\n');
  return root;
}

/**
 * The places of an agent's record test, made before its tests: the project (a git repository with a README), the
 * agent's HOME, and a note outside the project that a tool reads ("the first note").
 */
export function recordPlaces(prefix: string): { dir: string; root: string; home: string; note: string } {
  const dir = tempDir(prefix);
  const places = {
    dir,
    root: path.join(dir, 'project'),
    home: path.join(dir, 'home'),
    note: path.join(dir, 'note.txt'),
  };
  beforeAll(() => {
    identifiedProject(places.root);
    mkdirSync(places.home, { recursive: true });
    writeFileSync(places.note, 'the first note\n');
  });
  return places;
}

/** The verified steps of the project's journal `journal`. */
export function recordedSteps(root: string, journal: string): JournalEntry[] {
  return readVerifiedJournal(journalFile(root, journal)).entries;
}

/** `record --agent <agent> --journal <journal> [--upstream <upstream>]` (the agent's command follows `--`). */
export function recordArgs(agent: string, journal: string, upstream?: string): string[] {
  return [
    'record',
    '--agent',
    agent,
    '--journal',
    journal,
    ...(upstream === undefined ? [] : ['--upstream', upstream]),
  ];
}

/** `fork <journal> --from-step <step> --replay --upstream <upstream> --json` (the agent's command follows `--`). */
export function replayArgs(journal: string, step: number, upstream: string): string[] {
  return ['fork', journal, '--from-step', String(step), '--replay', '--upstream', upstream, '--json'];
}

/** What `stepchain record` / `fork --replay` printed and returned. */
export interface StepchainRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `stepchain <args>` as a real process, asynchronous (the scripted servers the agent talks to live in the test's
 * process), with exactly `env` (nothing of the test runner's environment; TMPDIR inside its HOME, `withAgentTmp`).
 */
export function runStepchain(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<StepchainRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd,
      env: withAgentTmp(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs `use` with a scripted server, closing the server after, whatever happens. */
export async function closing<S extends { close(): Promise<void> }>(
  server: S | Promise<S>,
  use: (s: S) => Promise<void>,
): Promise<void> {
  const s = await server;
  try {
    await use(s);
  } finally {
    await s.close();
  }
}

/** A blob of the project's CAS (a missing one fails the test). */
export function casBlob(root: string, digest: string): Buffer {
  const b = new Cas(casDir(root), false).get(digest);
  if (b === undefined) throw new Error(`blob ${digest} missing under ${root}`);
  return b;
}

/** One exchange as a scripted server saw it: the request body received, the response body sent. */
export interface RawExchange {
  request: Buffer;
  response: Buffer;
}

/**
 * The checks every agent's record test makes of its journal `journal` against the exchanges the scripted server
 * saw: `count` of each, and in order, `input_hash` the SHA-256 of the request's bytes, which the CAS holds; the
 * step naming the response's blob, whose bytes the CAS holds; the model `model` (the request's own when not
 * given) and the prompt the request's `prompt` field. Returns the steps.
 */
export function expectStepsAreExchanges(
  root: string,
  journal: string,
  raw: RawExchange[],
  o: { count: number; prompt: 'messages' | 'input' | 'contents'; model?: string },
): JournalEntry[] {
  const steps = recordedSteps(root, journal);
  expect(steps).toHaveLength(o.count);
  expect(raw).toHaveLength(o.count);
  steps.forEach((e, i) => {
    const x = raw[i]!;
    expect(e.row.input_hash).toBe(sha256Hex(x.request));
    expect(casBlob(root, e.row.input_hash).equals(x.request)).toBe(true);
    expect(e.row.blob_refs).toContain(sha256Hex(x.response));
    expect(casBlob(root, sha256Hex(x.response)).equals(x.response)).toBe(true);
    const body = parse(x.request.toString('utf8')) as Record<string, JsonValue>;
    expect(e.row.model).toBe(o.model ?? body.model);
    expect(e.row.prompt).toEqual(body[o.prompt]);
  });
  return steps;
}

/** The exchange record (a step's last blob): the request headers kept and the status. */
export interface ExchangeMeta {
  request_headers: [string, string][];
  status: number;
}

/**
 * A key the agent sent went nowhere into what was stored: no file under `.sdd` holds it, and the exchange record
 * of `step` lacks the header that carried it (`dropped`) while keeping the agent's other headers (`kept`).
 */
export function expectKeyKeptOut(
  root: string,
  step: JournalEntry,
  key: string,
  headers: { dropped: string; kept?: string },
): ExchangeMeta {
  expect(everythingStored(root)).not.toContain(key);
  const meta = JSON.parse(casBlob(root, step.row.blob_refs.at(-1)!).toString('utf8')) as ExchangeMeta;
  expect(meta.request_headers.map(([k]) => k)).not.toContain(headers.dropped);
  if (headers.kept !== undefined) expect(meta.request_headers.map(([k]) => k)).toContain(headers.kept);
  return meta;
}

/**
 * A recording's journal verifies (`stepchain verify` through runCli in this process: the recording ran as a real
 * process), and its run journal holds the agent's proxy adapter as `observed`.
 */
export async function expectRecordingObserved(root: string, journal: string, agent: string): Promise<ReadRunJournal> {
  expect((await cliInProcess(['verify', journal], { cwd: root })).code).toBe(0);
  expectNoProxySecret(root);
  const run = readRunJournalFile(runJournalFile(root, journal));
  expect(run.ok).toBe(true);
  expect(run.capabilities).toEqual([{ adapter: `proxy-${agent}`, capability: 'observed' }]);
  return run;
}

/**
 * The proxy's base URL as the agent was given it (`http://127.0.0.1:<port>/<secret>`, the secret 43 base64url
 * characters) is in no file under `<at>/.sdd`: not in an exchange, a hook step the agent's hooks recorded, or a run
 * event.
 */
export function expectNoProxySecret(at: string): void {
  expect(everythingStored(at)).not.toMatch(/(127\.0\.0\.1|localhost):\d+\/[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/);
}

/** Every file under `<at>/.sdd`, read as text, for a credential search. */
export function everythingStored(at: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(path.join(at, '.sdd'));
  return out.join('\n');
}

/** Processes whose working directory is under `d` (an agent that survived its fork). */
export function processesIn(d: string): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(n)) continue;
    try {
      if (readlinkSync(`/proc/${n}/cwd`).startsWith(d)) out.push(Number(n));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

/**
 * The checks every agent's "replay from step N, then live" test makes of `fork --replay --json`'s result: exit 0
 * without a warning (`warnings: 'stepchain'`: none of stepchain's own warning or error lines, for an agent that
 * prints warnings of its own), `replayed` recorded exchanges answered and the rest sent upstream (`upstream`: what
 * the live server received), the fork's files at step N as recorded, its journal sharing the recorded steps'
 * hashes up to N and holding the live requests as its next inputs, and verifying. The parsed result is returned
 * for the agent's own checks.
 */
export async function expectReplayedThenLive(
  r: StepchainRun,
  o: {
    root: string;
    recorded: JournalEntry[];
    replayed: number;
    upstream: { request: Buffer }[];
    warnings?: 'any' | 'stepchain';
  },
): Promise<{ fork_worktree: string; journal_path: string }> {
  expectNoStack(r);
  const doc = JSON.parse(r.stdout) as {
    fork_worktree: string;
    journal_path: string;
    files_at_step: { checked: boolean; differing: string[] };
  };
  if (o.warnings === 'stepchain')
    expect({ code: r.code, warnings: r.stderr.match(/stepchain: (warning|error).*/g) }).toEqual({
      code: 0,
      warnings: null,
    });
  else
    expect({ code: r.code, warnings: r.stderr.includes('warning') ? r.stderr : '' }).toEqual({
      code: 0,
      warnings: '',
    });
  const recordedHashes = o.recorded.map((e) => e.row.step_hash);
  const forwarded = recordedHashes.length - o.replayed;
  expect(doc).toMatchObject({ ok: true, replayed: o.replayed, forwarded, divergence: null });
  expect(o.upstream).toHaveLength(forwarded);
  expect(doc.files_at_step).toEqual({ checked: true, differing: [] });
  const fork = readVerifiedJournal(doc.journal_path).entries;
  expect(fork).toHaveLength(recordedHashes.length);
  expect(fork.slice(0, o.replayed).map((e) => e.row.step_hash)).toEqual(recordedHashes.slice(0, o.replayed));
  expect(fork.slice(o.replayed).map((e) => e.row.input_hash)).toEqual(o.upstream.map((x) => sha256Hex(x.request)));
  expect((await cliInProcess(['verify', doc.journal_path], { cwd: o.root })).code).toBe(0);
  return doc;
}

/**
 * The checks every agent's "the tool result changed" test makes of `fork --replay --json`'s result: exit 1 without
 * a stack (`ownLinesOnly`: in stepchain's own lines, for an agent that prints its own stack of the refused request),
 * stderr naming the exchange and the request field (`field`, a pattern) where the replay parted from the record,
 * the JSON divergence naming the exchange and showing `shows`, nothing sent upstream, and no agent left running
 * in the fork.
 */
export function expectReplayDiverged(
  r: StepchainRun,
  o: { exchange: number; field: RegExp; shows: RegExp[]; upstream: unknown[]; ownLinesOnly?: boolean },
): void {
  const own = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('stepchain'))
    .join('\n');
  expectNoStack(o.ownLinesOnly === true ? { ...r, stderr: own } : r);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(
    new RegExp(`exchange ${o.exchange}: the replayed request differs from the recorded one at ${o.field.source}`),
  );
  const doc = JSON.parse(r.stdout) as { ok: boolean; fork_worktree: string; divergence: { exchange: number } };
  expect(doc.ok).toBe(false);
  expect(doc.divergence.exchange).toBe(o.exchange);
  for (const shown of o.shows) expect(JSON.stringify(doc.divergence)).toMatch(shown);
  expect(o.upstream).toHaveLength(0);
  expect(processesIn(doc.fork_worktree)).toEqual([]);
}
