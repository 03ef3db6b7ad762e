import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { inputVar, prEvent, prScenario, readActionYml, RUNNER_TOKEN } from './action-repo';
import { repoRoot } from './paths';
import { tempDir } from './tmp';
import { python3 } from './python';

export * from './action-repo';

/**
 * Runs the built Action (dist/index.js) the way a runner does: a child process
 * with an INPUT_* variable for every input action.yml declares (its default
 * unless the step sets it, as the runner does), the GITHUB_* files and an event
 * payload from test/fixtures/events. Also local HTTP servers standing in for the
 * REST and GraphQL APIs (issue comments, the token's identity) and for the
 * artifact service (Twirp CreateArtifact/FinalizeArtifact plus Azure block-blob PUTs).
 */
export const actionPath = path.join(repoRoot, 'dist', 'index.js');

export function requireBuiltAction(): void {
  if (!existsSync(actionPath)) throw new Error(`${actionPath} is missing: run \`npm run build\` first`);
}

/**
 * What a test file of the built Action starts from: its temporary directory (removed after its tests), the
 * runner's scratch directory in it, `scenario()`, a fresh `prScenario` repository each call, and `onPr`, the
 * Action run on the pull request from `base` to the head of `dir` (with `inputs` and `env`). Checks the bundle is
 * built before the file's tests.
 */
export function actionTestBed(prefix: string): {
  tmp: string;
  scratch: string;
  scenario(): { dir: string; base: string };
  onPr(dir: string, base: string, inputs?: Record<string, string>, env?: Record<string, string>): Promise<ActionResult>;
} {
  const tmp = tempDir(prefix);
  const scratch = path.join(tmp, 'scratch');
  let n = 0;
  beforeAll(() => requireBuiltAction());
  return {
    tmp,
    scratch,
    scenario: () => prScenario(path.join(tmp, `scenario-${++n}`)),
    onPr: (dir, base, inputs = {}, env = {}) =>
      runAction({ workspace: dir, scratch, event: prEvent(dir, base), inputs, env }),
  };
}

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  file?: string;
  line?: number;
  title?: string;
  message: string;
}

export interface ActionResult {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  annotations: Annotation[];
}

function unescapeData(s: string): string {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}
function unescapeProp(s: string): string {
  return unescapeData(s).replace(/%3A/g, ':').replace(/%2C/g, ',');
}

/** `::error file=F,line=L,title=T::message` workflow commands on stdout. */
export function parseAnnotations(stdout: string): Annotation[] {
  const out: Annotation[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const m = /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/.exec(line);
    if (m === null) continue;
    const a: Annotation = { level: m[1] as Annotation['level'], message: unescapeData(m[3]!) };
    for (const kv of (m[2] ?? '').split(',').filter(Boolean)) {
      const eq = kv.indexOf('=');
      const k = kv.slice(0, eq);
      const v = unescapeProp(kv.slice(eq + 1));
      if (k === 'file') a.file = v;
      if (k === 'line') a.line = Number(v);
      if (k === 'title') a.title = v;
    }
    out.push(a);
  }
  return out;
}

/** The `name<<DELIM ... DELIM` records of a GITHUB_OUTPUT file. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i]!);
    if (m === null) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join('\n');
  }
  return out;
}

export interface RunOptions {
  workspace: string;
  /** Scratch directory for the GITHUB_* files and RUNNER_TEMP. */
  scratch: string;
  inputs?: Record<string, string>;
  event?: { name: string; payload: unknown };
  env?: Record<string, string>;
}

let runCount = 0;

/** The parent environment without anything a real runner would have set. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(GITHUB_|INPUT_|ACTIONS_|RUNNER_)/.test(k)) continue;
    env[k] = v;
  }
  return env;
}

export async function runAction(o: RunOptions): Promise<ActionResult> {
  const dir = path.join(o.scratch, `run-${++runCount}`);
  mkdirSync(dir, { recursive: true });
  const outputFile = path.join(dir, 'output');
  const summaryFile = path.join(dir, 'summary.md');
  const eventFile = path.join(dir, 'event.json');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const event = o.event ?? { name: 'push', payload: {} };
  writeFileSync(eventFile, JSON.stringify(event.payload));
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: 'octo/stepchain-test',
    RUNNER_TEMP: path.join(dir, 'runner-temp'),
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...o.env,
  };
  mkdirSync(env['RUNNER_TEMP']!, { recursive: true });
  // Every declared input is set, to its default unless the step gives it (the runner does the same).
  const yml = readActionYml();
  for (const [k, spec] of Object.entries(yml.inputs)) {
    const dflt = String(spec.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/g, RUNNER_TOKEN);
    env[inputVar(k)] = dflt;
  }
  for (const [k, v] of Object.entries(o.inputs ?? {})) env[inputVar(k)] = v;
  const child = spawn(process.execPath, [actionPath], { cwd: o.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputFile(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8'),
    annotations: parseAnnotations(stdout),
  };
}

// --- Local stand-ins for GitHub's services -------------------------------------------------

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FakeUser {
  login: string;
  type: 'User' | 'Bot';
}

export interface FakeComment {
  id: number;
  body: string;
  user: FakeUser;
}

/** The workflow token's identity, as GitHub reports it (GraphQL viewer and REST comment author alike). */
export const ACTIONS_BOT: FakeUser = { login: 'github-actions[bot]', type: 'Bot' };

export interface UploadedArtifact {
  name: string;
  createRequest: Record<string, unknown>;
  finalizeRequest: Record<string, unknown>;
  /** The blob as committed (blocks in block-list order). */
  bytes: Buffer;
}

/**
 * One HTTP server for the REST API (issue comments) and the artifact service:
 * POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact returns a
 * signed upload URL on this server; the Azure SDK then PUTs blocks
 * (`?comp=block&blockid=`) and a block list (`?comp=blocklist`); FinalizeArtifact
 * returns an artifact id.
 */
export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  readonly comments = new Map<number, FakeComment[]>();
  /** Who each token is (a token not listed is refused, as GitHub does with 401). */
  readonly identities = new Map<string, FakeUser>([[RUNNER_TOKEN, ACTIONS_BOT]]);
  readonly artifacts: UploadedArtifact[] = [];
  private readonly blocks = new Map<string, Map<string, Buffer>>();
  private readonly blobs = new Map<string, Buffer>();
  private readonly pending = new Map<string, Record<string, unknown>>();
  private nextId = 1000;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        try {
          this.handle(req, res, body);
        } catch (e) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ msg: (e as Error).message }));
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** An unsigned JWT with the `scp` claim @actions/artifact reads the backend ids from. */
  static runtimeToken(runId = 'run-backend-1', jobId = 'job-backend-1'): string {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ scp: `Actions.GenericRead:x Actions.Results:${runId}:${jobId}`, exp: 4102444800 })}.sig`;
  }

  private json(res: ServerResponse, status: number, doc: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc));
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const url = new URL(req.url ?? '/', this.url);
    const p = url.pathname;
    const twirp = /^\/twirp\/github\.actions\.results\.api\.v1\.ArtifactService\/(\w+)$/.exec(p);
    if (twirp && req.method === 'POST') {
      const doc = JSON.parse(body.toString()) as Record<string, unknown>;
      const name = String(doc['name']);
      if (twirp[1] === 'CreateArtifact') {
        this.pending.set(name, doc);
        this.json(res, 200, {
          ok: true,
          signed_upload_url: `${this.url}/blob/devstoreaccount1/actions-results/${encodeURIComponent(name)}.zip?sig=fake-signature`,
        });
        return;
      }
      if (twirp[1] === 'FinalizeArtifact') {
        const key = `/blob/devstoreaccount1/actions-results/${encodeURIComponent(name)}.zip`;
        this.artifacts.push({
          name,
          createRequest: this.pending.get(name) ?? {},
          finalizeRequest: doc,
          bytes: this.blobs.get(key) ?? Buffer.alloc(0),
        });
        this.json(res, 200, { ok: true, artifact_id: '4242' });
        return;
      }
      this.json(res, 404, { code: 'bad_route', msg: `no method ${twirp[1]}` });
      return;
    }
    if (p.startsWith('/blob/') && req.method === 'PUT') {
      const comp = url.searchParams.get('comp');
      if (comp === 'block') {
        const id = url.searchParams.get('blockid') ?? '';
        if (!this.blocks.has(p)) this.blocks.set(p, new Map());
        this.blocks.get(p)!.set(id, body);
        res.writeHead(201, { 'x-ms-request-id': 'r', 'x-ms-version': '2025-01-05' });
        res.end();
        return;
      }
      if (comp === 'blocklist') {
        const ids = [...body.toString().matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)<\//g)].map((m) => m[1]!);
        const staged = this.blocks.get(p) ?? new Map<string, Buffer>();
        this.blobs.set(p, Buffer.concat(ids.map((id) => staged.get(id) ?? Buffer.alloc(0))));
        res.writeHead(201, {
          'x-ms-request-id': 'r',
          'x-ms-version': '2025-01-05',
          etag: '"1"',
          'last-modified': new Date().toUTCString(),
        });
        res.end();
        return;
      }
      // A single-shot PUT of the whole blob.
      this.blobs.set(p, body);
      res.writeHead(201, { 'x-ms-request-id': 'r' });
      res.end();
      return;
    }
    const auth = String(req.headers['authorization'] ?? '').replace(/^(token|bearer) /i, '');
    const who = this.identities.get(auth);
    if (p === '/graphql' || p.startsWith('/repos/')) {
      if (who === undefined) {
        this.json(res, 401, { message: 'Bad credentials' });
        return;
      }
    }
    if (p === '/graphql' && req.method === 'POST') {
      const q = String((JSON.parse(body.toString()) as { query?: string }).query ?? '');
      if (/viewer\s*\{\s*login\s*\}/.test(q)) {
        this.json(res, 200, { data: { viewer: { login: who!.login } } });
        return;
      }
      this.json(res, 200, { errors: [{ message: `unsupported query: ${q}` }] });
      return;
    }
    const list = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(p);
    if (list) {
      const n = Number(list[3]);
      const cs = this.comments.get(n) ?? [];
      if (req.method === 'GET') {
        this.json(
          res,
          200,
          cs.map((c) => ({ id: c.id, body: c.body, user: { login: c.user.login, type: c.user.type } })),
        );
        return;
      }
      if (req.method === 'POST') {
        const c = {
          id: this.nextId++,
          body: String((JSON.parse(body.toString()) as { body: string }).body),
          user: who!,
        };
        cs.push(c);
        this.comments.set(n, cs);
        this.json(res, 201, { id: c.id, body: c.body, user: c.user });
        return;
      }
    }
    const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(p);
    if (one && req.method === 'PATCH') {
      const id = Number(one[3]);
      for (const cs of this.comments.values()) {
        const c = cs.find((x) => x.id === id);
        if (c) {
          // GitHub lets only the author (or a maintainer) edit; the workflow token is neither for a human's comment.
          if (c.user.login !== who!.login) {
            this.json(res, 403, { message: 'Resource not accessible by integration' });
            return;
          }
          c.body = String((JSON.parse(body.toString()) as { body: string }).body);
          this.json(res, 200, { id, body: c.body, user: c.user });
          return;
        }
      }
      this.json(res, 404, { message: 'Not Found' });
      return;
    }
    this.json(res, 404, { message: `Not Found: ${req.method} ${p}` });
  }
}

/** The members of a zip, by name, read with python3's zipfile. */
export function unzip(bytes: Buffer): Record<string, Buffer> {
  const r = spawnSync(
    python3(),
    [
      '-c',
      'import base64,io,json,sys,zipfile\nz=zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))\nprint(json.dumps({n: base64.b64encode(z.read(n)).decode() for n in z.namelist()}))',
    ],
    { input: bytes, maxBuffer: 1 << 30 },
  );
  if (r.status !== 0) throw new Error(`python3 zipfile failed: ${r.stderr.toString()}`);
  const doc = JSON.parse(r.stdout.toString()) as Record<string, string>;
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
}

/** The step's one-line failure (core.setFailed prints `::error::<line>`). */
export function failureOf(r: ActionResult): string | undefined {
  return r.annotations.find((a) => a.level === 'error' && a.file === undefined)?.message;
}

/** No stack trace anywhere in what the Action printed. */
export function stackIn(r: ActionResult): boolean {
  return /\n\s+at .+:\d+:\d+\)?/.test(r.stdout + r.stderr);
}
