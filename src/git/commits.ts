import { InputError } from '../errors';
import { GitCommandError, gitRun, gitStream } from '../git/exec';
import { nulRecordStream } from '../util/nul-records';
import { isObjectId, OBJECT_ID_HEX } from './object-id';

/**
 * Reading the files of another commit (a PR's base, the commit before a push)
 * without checking it out, every git process through the one runner of
 * src/git/exec.ts (its environment policy: no inherited GIT_DIR and the like).
 * A shallow checkout (the default of actions/checkout) does not have the base:
 * `ensureCommit` fetches exactly that commit, one level deep. A partial clone
 * (`--filter=blob:none`) has the base's trees but not its blobs: the ones the
 * check reads are fetched in one batch, not one round trip per file.
 */
function oneLine(e: unknown): string {
  if (e instanceof GitCommandError) return e.message;
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}

async function hasCommit(cwd: string, sha: string): Promise<boolean> {
  try {
    await gitRun(cwd, ['cat-file', '-e', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Makes sure `sha` is present, fetching it from `remote` when it is not. Returns whether a fetch happened. */
export async function ensureCommit(cwd: string, sha: string, remote = 'origin'): Promise<boolean> {
  if (!/^[0-9a-f]{7,64}$/i.test(sha)) throw new InputError(`bad commit id ${JSON.stringify(sha)}`);
  try {
    await gitRun(cwd, ['rev-parse', '--git-dir']);
  } catch {
    throw new InputError(`${cwd}: not a git repository (the append-only check needs the checkout's history)`);
  }
  if (await hasCommit(cwd, sha)) return false;
  try {
    await gitRun(cwd, ['fetch', '--no-tags', '--no-recurse-submodules', '--depth=1', remote, sha]);
  } catch (e) {
    throw new InputError(`cannot fetch the commit ${sha} from ${remote}: ${oneLine(e)}`);
  }
  if (!(await hasCommit(cwd, sha)))
    throw new InputError(`the commit ${sha} is still missing after fetching it from ${remote}`);
  return true;
}

/** A file of a commit's tree. */
export interface TreeBlob {
  /** Its path as UTF-8 text (`/`-separated, from the top). */
  path: string;
  oid: string;
  /**
   * Set when the path's bytes are not UTF-8 (git stores any bytes): `path` then spells them with U+FFFD, a string
   * that names no file and may be another file's real name (one spelled with a real U+FFFD), so it must never be
   * looked up or read as a name (a glob may match the spelling: it says where a match could be).
   */
  notUtf8?: true;
}

/**
 * The blobs (path and object id) of `commit` whose paths pass the test, sorted by path. Paths are read from git's
 * bytes: one that is not UTF-8 is marked (`notUtf8`), never passed off as the name its U+FFFD spelling is.
 */
export async function listBlobsAtCommit(
  cwd: string,
  commit: string,
  wanted: (path: string) => boolean,
): Promise<TreeBlob[]> {
  const blobs: TreeBlob[] = [];
  const records = nulRecordStream((rec) => {
    const blob = treeRecord(rec);
    if (blob !== undefined && wanted(blob.path)) blobs.push(blob);
  });
  try {
    // Streamed, never gathered (a monorepo's listing is hundreds of megabytes): only the blobs wanted are held.
    await gitStream(cwd, ['ls-tree', '-r', '-z', '--full-tree', commit], (chunk) => records.push(chunk));
  } catch (e) {
    throw new InputError(`cannot list the files of commit ${commit}: ${oneLine(e)}`);
  }
  records.end();
  return blobs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One `<mode> <type> <oid>\t<path>` record of `ls-tree -z`: a blob, or undefined (a link, 120000, or a submodule is not a file). */
function treeRecord(rec: Buffer): TreeBlob | undefined {
  const tab = rec.indexOf(9);
  if (tab < 0) return undefined;
  const [mode, type, oid] = rec.toString('latin1', 0, tab).split(' ');
  if (type !== 'blob' || mode === '120000' || oid === undefined) return undefined;
  const raw = rec.subarray(tab + 1);
  const path = raw.toString('utf8');
  return path.includes('\uFFFD') && !Buffer.from(path, 'utf8').equals(raw)
    ? { path, oid, notUtf8: true }
    : { path, oid };
}

/** The promisor remote of a partial clone, or undefined for a complete repository. */
async function promisorRemote(cwd: string): Promise<string | undefined> {
  let out: string;
  try {
    out = (await gitRun(cwd, ['config', '--get-regexp', '^remote\\..*\\.promisor$'])).toString('utf8');
  } catch {
    return undefined; // exit 1: no such key
  }
  for (const line of out.split('\n')) {
    const m = /^remote\.(.+)\.promisor (.*)$/.exec(line);
    if (m && /^(true|yes|on|1)$/i.test(m[2]!)) return m[1];
  }
  return undefined;
}

/**
 * In a partial clone, fetches the blobs among `oids` that are not present, in one
 * `git fetch` (reading them one by one would make git fetch each lazily, one
 * round trip per file). Returns how many were fetched.
 */
export async function prefetchBlobs(cwd: string, commit: string, oids: string[]): Promise<number> {
  if (oids.length === 0) return 0;
  const remote = await promisorRemote(cwd);
  if (remote === undefined) return 0;
  // `--missing=print` lists what is absent (`?<oid>`) without fetching it.
  let listing: string;
  try {
    listing = (await gitRun(cwd, ['rev-list', '--objects', '--missing=print', '--no-walk', commit])).toString('utf8');
  } catch (e) {
    throw new InputError(`cannot list the objects of commit ${commit}: ${oneLine(e)}`);
  }
  const absent = new Set<string>();
  for (const line of listing.split('\n')) if (line.startsWith('?')) absent.add(line.slice(1).trim());
  const wanted = [...new Set(oids)].filter((o) => absent.has(o));
  if (wanted.length === 0) return 0;
  try {
    await gitRun(
      cwd,
      [
        '-c',
        'fetch.negotiationAlgorithm=noop',
        'fetch',
        '--no-tags',
        '--no-write-fetch-head',
        '--recurse-submodules=no',
        '--filter=blob:none',
        '--stdin',
        remote,
      ],
      { input: `${wanted.join('\n')}\n` },
    );
  } catch (e) {
    throw new InputError(`cannot fetch ${wanted.length} blobs of commit ${commit} from ${remote}: ${oneLine(e)}`);
  }
  return wanted.length;
}

/** Parses `git cat-file --batch` output for the requested names, in order. */
function parseBatch(out: Buffer, names: string[]): (Buffer | undefined)[] {
  const result: (Buffer | undefined)[] = [];
  let pos = 0;
  for (let i = 0; i < names.length; i++) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) throw new InputError('git cat-file: truncated output');
    const header = out.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
    if (m === null) {
      result.push(undefined); // "<object> missing" (or ambiguous)
      continue;
    }
    const size = Number(m[2]);
    // A view into the batch output (no copy): the blobs of one batch live as long as the caller keeps any.
    result.push(m[1] === 'blob' ? out.subarray(pos, pos + size) : undefined);
    pos += size + 1; // content, then a newline
  }
  return result;
}

async function catFileBatch(cwd: string, names: string[]): Promise<(Buffer | undefined)[]> {
  if (names.length === 0) return [];
  let out: Buffer;
  try {
    out = await gitRun(cwd, ['cat-file', '--batch'], { input: names.map((n) => `${n}\n`).join('') });
  } catch (e) {
    throw new InputError(`git cat-file failed: ${oneLine(e)}`);
  }
  return parseBatch(out, names);
}

/** The contents of blobs by object id, read through one `git cat-file --batch` process. */
export async function readBlobs(cwd: string, oids: string[]): Promise<Map<string, Buffer | undefined>> {
  const unique = [...new Set(oids)];
  const got = await catFileBatch(cwd, unique);
  return new Map(unique.map((o, i) => [o, got[i]]));
}

/** A named object as `blobIds` gives it: a blob's id and size, or undefined (missing, ambiguous, not a blob). */
export type BlobId = { oid: string; size: number } | undefined;

/**
 * What each of `names` (`<commit>:<path>`, any name `git cat-file` takes; no line breaks) names, through one
 * `git cat-file --batch-check` process whose answer is read a line at a time as it comes (never gathered): the blob's
 * id and size, or undefined for a name that names no blob (a path missing at that commit, a directory, a submodule).
 * Nothing is read of the contents.
 */
const CAT_FILE_LINE = new RegExp(`^(${OBJECT_ID_HEX}) (\\w+) (\\d+)$`);

export async function blobIds(cwd: string, names: readonly string[]): Promise<BlobId[]> {
  const result: BlobId[] = [];
  if (names.length === 0) return result;
  let rest: Buffer = Buffer.alloc(0);
  const onLine = (line: string): void => {
    if (result.length >= names.length) throw new InputError('git cat-file: more answers than names');
    // `<oid> <type> <size>` for an object; `<name> missing` (or `ambiguous`) otherwise, and a name holds a `:`.
    const m = CAT_FILE_LINE.exec(line);
    result.push(m !== null && m[2] === 'blob' ? { oid: m[1]!, size: Number(m[3]) } : undefined);
  };
  try {
    await gitStream(
      cwd,
      ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'],
      (chunk) => {
        let buf = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
        let nl: number;
        while ((nl = buf.indexOf(0x0a)) >= 0) {
          onLine(buf.toString('utf8', 0, nl));
          buf = buf.subarray(nl + 1);
        }
        rest = Buffer.from(buf); // a copy: the chunk is not kept
      },
      { input: names.map((n) => `${n}\n`).join('') },
    );
  } catch (e) {
    throw e instanceof GitCommandError ? new InputError(`git cat-file failed: ${oneLine(e)}`) : e;
  }
  if (rest.length > 0 || result.length !== names.length) throw new InputError('git cat-file: truncated output');
  return result;
}

/**
 * The contents of the blobs `oids` (ids `blobIds` gave; one may come more than once), handed to `onBlob` one at a
 * time in that order as one `git cat-file --batch` process writes them: only the blob being read is held, never the
 * whole output. A blob that is missing after all is handed over as undefined.
 */
export async function eachBlob(
  cwd: string,
  oids: readonly string[],
  onBlob: (index: number, content: Buffer | undefined) => void,
): Promise<void> {
  if (oids.length === 0) return;
  let index = 0;
  let header: Buffer = Buffer.alloc(0); // a header line not ended yet
  let body: Buffer | undefined; // the blob being read
  let filled = 0;
  let skip = 0; // the newline after a blob still to come
  const take = (chunk: Buffer): void => {
    let pos = 0;
    while (pos < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - pos);
        skip -= n;
        pos += n;
        continue;
      }
      if (body !== undefined) {
        const n = Math.min(body.length - filled, chunk.length - pos);
        chunk.copy(body, filled, pos, pos + n);
        filled += n;
        pos += n;
        if (filled === body.length) {
          const done = body;
          body = undefined;
          skip = 1;
          onBlob(index++, done);
        }
        continue;
      }
      const nl = chunk.indexOf(0x0a, pos);
      if (nl < 0) {
        header = Buffer.concat([header, chunk.subarray(pos)]);
        return;
      }
      const line = Buffer.concat([header, chunk.subarray(pos, nl)]).toString('utf8');
      header = Buffer.alloc(0);
      pos = nl + 1;
      if (index >= oids.length) throw new InputError('git cat-file: more answers than objects');
      const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(line);
      if (m === null) {
        onBlob(index++, undefined); // "<object> missing"
        continue;
      }
      const size = Number(m[2]);
      if (m[1] !== 'blob') {
        // Not a blob after all: its bytes are skipped, not kept.
        skip = size + 1;
        onBlob(index++, undefined);
      } else if (size === 0) {
        skip = 1;
        onBlob(index++, Buffer.alloc(0));
      } else {
        body = Buffer.allocUnsafe(size);
        filled = 0;
      }
    }
  };
  try {
    await gitStream(cwd, ['cat-file', '--batch'], take, { input: oids.map((o) => `${o}\n`).join('') });
  } catch (e) {
    throw e instanceof GitCommandError ? new InputError(`git cat-file failed: ${oneLine(e)}`) : e;
  }
  if (index !== oids.length || body !== undefined || skip > 0 || header.length > 0)
    throw new InputError('git cat-file: truncated output');
}

/**
 * The contents of `paths` at `commit`, read through one `git cat-file --batch`
 * process (one process for any number of files keeps a large PR fast); in a
 * partial clone the missing blobs are fetched first, in one batch. A path
 * missing at that commit maps to undefined.
 */
export async function readFilesAtCommit(
  cwd: string,
  commit: string,
  paths: string[],
): Promise<Map<string, Buffer | undefined>> {
  const result = new Map<string, Buffer | undefined>();
  if (paths.length === 0) return result;
  const wanted = new Set(paths);
  // A path that is not UTF-8 is never one of `paths` (strings), whatever its U+FFFD spelling.
  const blobs = (await listBlobsAtCommit(cwd, commit, (p) => wanted.has(p))).filter((b) => b.notUtf8 === undefined);
  await prefetchBlobs(
    cwd,
    commit,
    blobs.map((b) => b.oid),
  );
  const byPath = new Map(blobs.map((b) => [b.path, b.oid]));
  const contents = await readBlobs(
    cwd,
    blobs.map((b) => b.oid),
  );
  for (const p of paths) {
    const oid = byPath.get(p);
    result.set(p, oid === undefined ? undefined : contents.get(oid));
  }
  return result;
}

/** The commit id a ref names (a branch, tag, `HEAD~1`, an id); an input error when it names none. */
export async function resolveCommit(cwd: string, ref: string): Promise<string> {
  if (ref.startsWith('-')) throw new InputError(`bad ref ${JSON.stringify(ref)}`);
  let out = '';
  try {
    out = (await gitRun(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).toString('utf8').trim();
  } catch {
    /* below */
  }
  // `--quiet` makes a missing ref an empty answer, not an error: never pass "" on as a commit.
  if (!isObjectId(out))
    throw new InputError(`--base ${ref}: no such commit in ${cwd} (a branch, tag or commit id; fetch it first?)`);
  return out;
}

/** The checkout's HEAD commit, or undefined outside a repository. */
export async function headCommit(cwd: string): Promise<string | undefined> {
  try {
    return (await gitRun(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).toString('utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * The parents a commit object names (empty when unknown). Read from the object itself: in a shallow clone the
 * commit at the boundary (actions/checkout's merge commit at fetch-depth 1) is shown by `rev-list` with no parents,
 * though its object names them.
 */
export async function parentsOf(cwd: string, commit: string): Promise<string[]> {
  return isObjectId(commit) ? ((await namedParents(cwd, commit)) ?? []) : [];
}

/** The `parent` lines of a commit object (`name`: an id or HEAD), or undefined when git cannot read it. */
async function namedParents(cwd: string, name: string): Promise<string[] | undefined> {
  try {
    const raw = (await gitRun(cwd, ['cat-file', 'commit', name])).toString('utf8');
    const header = raw.slice(0, raw.indexOf('\n\n'));
    return header
      .split('\n')
      .filter((l) => l.startsWith('parent '))
      .map((l) => l.slice('parent '.length));
  } catch {
    return undefined;
  }
}

/** Whether commit `ancestor` is `of` or an ancestor of it (false when either is unknown, as in a shallow history). */
export async function isAncestor(cwd: string, ancestor: string, of: string): Promise<boolean> {
  if (![ancestor, of].every(isObjectId)) return false;
  try {
    await gitRun(cwd, ['merge-base', '--is-ancestor', ancestor, of]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where a pull request's checkout branched from its base: `base` itself when
 * the checkout contains it (the merge commit actions/checkout makes), else the
 * merge base of the two (a checkout of the PR's own head, whose branch does not
 * have what the base branch appended since); undefined when history does not
 * say (a shallow checkout without the fork point).
 *
 * Every merge base, not one: when the head merged two commits of the base's
 * history that are not ancestors of each other (a criss-cross), `git merge-base`
 * names one of them, and history compared with that one alone lets the head
 * rewrite what the other holds (git's merge then builds a virtual base from
 * both, and the rewrite lands cleanly).
 */
export async function forkPoints(cwd: string, base: string, head = 'HEAD'): Promise<string[] | undefined> {
  // The commit object names its parents even in a shallow clone, where history above it is cut off.
  const parents = await namedParents(cwd, head);
  if (parents === undefined) return undefined;
  if (parents.includes(base)) return [base];
  try {
    await gitRun(cwd, ['merge-base', '--is-ancestor', base, head]);
    return [base];
  } catch {
    /* not an ancestor, or not known in a shallow history */
  }
  try {
    const out = (await gitRun(cwd, ['merge-base', '--all', base, head])).toString('utf8').split('\n');
    const all = out.map((l) => l.trim()).filter((l) => l !== '');
    return all.length > 0 && all.every(isObjectId) ? all : undefined;
  } catch {
    return undefined;
  }
}
