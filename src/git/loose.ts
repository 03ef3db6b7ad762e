import { createHash } from 'node:crypto';
import { closeSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makeDirsBelow, readRegularFile, regularFileExists } from '../util/nofollow';
import { looseMissing, PackedRefs, withPackedRefs } from './packed-refs';
import { refDirectories } from './ref-name';
import { deflateStored, inflate, type Inflated } from './zlib-small';

/**
 * What a snapshot writes and reads of a repository without starting git, each a few hundred bytes: the commit
 * object and the trees ./index-tree.ts builds (loose objects: `<type> <size>\0<body>` in zlib's format, stored
 * uncompressed as git writes them with core.looseCompression=0 (./zlib-small.ts says why), named by their SHA-1),
 * the snapshot's ref (a loose
 * ref, written under git's own lock file protocol), and, to tell whether a step changed anything, the tree a loose
 * commit names. An agent's hook starts git for each of these otherwise (three processes per step).
 *
 * Only in a repository whose format git 2.x writes this way: SHA-1 objects, loose refs in files, no shared
 * permissions, no reflog for the ref. For anything else each function answers `undefined` having written nothing
 * (`LooseRepo.from` says why), and the caller runs git, as it always did. Nothing here runs a program, and nothing
 * is read through a link.
 */

/** The facts of a repository's configuration that decide whether a commit and a ref can be written in-process. */
export interface LooseRepo {
  commonDir: string;
  /** The author and committer identity, as git would write it (`Name <email>`). */
  ident: string;
}

/** The keys `fromConfig` reads (a `git config --null --get-regexp` pattern, git's lower-case key names). */
export const LOOSE_CONFIG_PATTERN =
  '^extensions\\.|^core\\.(sharedrepository|logallrefupdates|repositoryformatversion)$|^(user|author|committer)\\.(name|email|useconfigonly)$|^i18n\\.commitencoding$';

/** The last value of every key of `git config --null --get-regexp` output (`key\nvalue\0` records), by key. */
export function configValues(output: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rec of output.split('\0')) {
    if (rec === '') continue;
    const nl = rec.indexOf('\n');
    // A key alone (`[user] name` with no `=`) is boolean true in git: no string value this needs.
    if (nl < 0) out.set(rec.toLowerCase(), '');
    else out.set(rec.slice(0, nl).toLowerCase(), rec.slice(nl + 1));
  }
  return out;
}

/**
 * git's "crud" (ident.c): what it strips from both ends of a name or email, taken wide (git's own set has changed
 * between versions); `<`, `>` and a newline it drops anywhere.
 */
function crud(c: number): boolean {
  return c <= 32 || '.,:;<>"\\\''.includes(String.fromCharCode(c));
}

/**
 * Whether git writes `s` in an ident line as it is: no crud at either end, no `<`, `>` or newline, not empty,
 * valid UTF-8 (read losslessly). Any other value is left to git, which strips, drops or refuses.
 */
export function plainIdentValue(s: string): boolean {
  const b = Buffer.from(s, 'utf8');
  return b.length > 0 && !crud(b[0]!) && !crud(b[b.length - 1]!) && !/[<>\n\uFFFD]/.test(s);
}

/**
 * The identity git would write for a snapshot's author and committer, or undefined when git would find it some
 * other way than this reads (the user's passwd entry, a guessed host name), would change it, or the two differ:
 * then git is asked. git's order (ident.c): GIT_AUTHOR_* (GIT_COMMITTER_*) in the environment, `author.*`
 * (`committer.*`), `user.*`, and for the email the EMAIL variable last.
 */
function identity(config: Map<string, string>, env: NodeJS.ProcessEnv): string | undefined {
  const one = (who: 'author' | 'committer'): string | undefined => {
    const W = who.toUpperCase();
    const name = env[`GIT_${W}_NAME`] ?? config.get(`${who}.name`) ?? config.get('user.name');
    const email = env[`GIT_${W}_EMAIL`] ?? config.get(`${who}.email`) ?? config.get('user.email') ?? env.EMAIL;
    if (name === undefined || email === undefined || !plainIdentValue(name) || !plainIdentValue(email))
      return undefined;
    return `${name} <${email}>`;
  };
  const author = one('author');
  return author !== undefined && author === one('committer') ? author : undefined;
}

/**
 * Whether the repository keeps objects and refs as git 2.x writes them by default, so that they can be written
 * in-process: SHA-1 objects, refs in files, no shared permissions, no reflog kept for every ref. `c` holds the
 * values of LOOSE_CONFIG_PATTERN's keys (configValues).
 */
export function filesAsGitWrites(c: Map<string, string>): boolean {
  // Any extension (another object format, reftable, a worktree config...) is a format this does not write.
  for (const key of c.keys()) if (key.startsWith('extensions.')) return false;
  if ((c.get('core.repositoryformatversion') ?? '0') !== '0' && c.get('core.repositoryformatversion') !== '1')
    return false;
  const shared = c.get('core.sharedrepository');
  if (shared !== undefined && !/^(false|umask|no|off|0)$/i.test(shared)) return false;
  return c.get('core.logallrefupdates')?.toLowerCase() !== 'always';
}

/**
 * Whether (and how) the snapshot's commit and ref can be written in-process; undefined: ask git. `config` is the
 * output of `git config --null --get-regexp` over LOOSE_CONFIG_PATTERN (and any other keys).
 */
export function looseRepo(commonDir: string, config: string, env: NodeJS.ProcessEnv): LooseRepo | undefined {
  const c = configValues(config);
  if (!filesAsGitWrites(c)) return undefined;
  if (c.has('i18n.commitencoding')) return undefined;
  // Dates from the environment take git's date parser; the time zone git would use is this process's.
  if (env.GIT_AUTHOR_DATE !== undefined || env.GIT_COMMITTER_DATE !== undefined) return undefined;
  if (env.TZ !== process.env.TZ) return undefined;
  const ident = identity(c, env);
  return ident === undefined ? undefined : { commonDir, ident };
}

/** `+hhmm` / `-hhmm`: the local time zone's offset at `seconds`, as git writes it. */
export function tzOffset(seconds: number): string {
  const minutes = -new Date(seconds * 1000).getTimezoneOffset();
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}${String(a % 60).padStart(2, '0')}`;
}

/** The body of the commit `git commit-tree <tree> [-p <parent>]` writes with `message` on stdin at `seconds`. */
export function commitBody(
  tree: string,
  parent: string | undefined,
  ident: string,
  seconds: number,
  message: string,
): Buffer {
  const when = `${seconds} ${tzOffset(seconds)}`;
  const head =
    `tree ${tree}\n` +
    (parent === undefined ? '' : `parent ${parent}\n`) +
    `author ${ident} ${when}\ncommitter ${ident} ${when}\n\n`;
  return Buffer.from(head + message, 'utf8');
}

function objectBytes(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${type} ${body.length}\0`, 'latin1'), body]);
}

const OID = /^[0-9a-f]{40}$/;

/**
 * Creates `dir` below the repository's directory, one directory at a time, and says whether every directory on the
 * way is a real one: a link in the way (`objects/ab`, `refs/stepchain` pointing elsewhere) is never written through
 * here, whatever it points at; nor a file in the way. Either way git is left to decide, as before this existed.
 */
function realDirs(commonDir: string, dir: string): boolean {
  try {
    makeDirsBelow(commonDir, dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a loose object (unless it is there) and returns its id; undefined when it could not be written the way
 * git writes one (then nothing is left behind). Written whole under a temporary name, then linked into place.
 */
export function writeLooseObject(repo: LooseRepo, type: 'commit' | 'tree', body: Buffer): string | undefined {
  const raw = objectBytes(type, body);
  const oid = createHash('sha1').update(raw).digest('hex');
  const dir = path.join(repo.commonDir, 'objects', oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  if (!realDirs(repo.commonDir, dir)) return undefined;
  if (regularFileExists(file)) return oid; // already stored (a link or a FIFO in its place: throws)
  const tmp = path.join(dir, `tmp_obj_stepchain_${process.pid}_${Math.random().toString(36).slice(2)}`);
  let fd: number;
  try {
    fd = openSync(tmp, 'wx', 0o444);
  } catch {
    return undefined;
  }
  try {
    const z = deflateStored(raw);
    for (let at = 0; at < z.length;) at += writeSync(fd, z, at, z.length - at);
  } catch {
    closeSync(fd);
    unlinkSync(tmp);
    return undefined;
  }
  closeSync(fd);
  try {
    linkSync(tmp, file); // as git does: a file that appeared meanwhile is the same object
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      unlinkSync(tmp);
      return undefined;
    }
  }
  unlinkSync(tmp);
  return oid;
}

/** The largest loose object read here (a tree of over a million entries): a larger one is git's. */
const MAX_LOOSE_OBJECT = 1 << 26;

/**
 * Above this many compressed bytes a loose object is inflated by zlib (node:zlib, loaded then): ./zlib-small.ts
 * runs in V8's interpreter and a tree git wrote at level 1 costs it ~5x zlib's time (a 20,000-file directory's
 * 494 KB root tree, read twice by every step's diff: ~40 ms each in a fresh process, zlib with its load ~7 ms);
 * below it, loading zlib costs more than it saves (measured, fresh processes: 10 KB ~2.2 vs ~2.8 ms, 40 KB ~8 vs
 * ~2.9 ms).
 */
const ZLIB_ABOVE = 1 << 15;

function inflateLoose(bytes: Buffer): Inflated {
  if (bytes.length <= ZLIB_ABOVE) return inflate(bytes, MAX_LOOSE_OBJECT);
  // `info` hands back the engine, whose bytesWritten is the input consumed up to the stream's end.
  const zlib = process.getBuiltinModule('node:zlib');
  const inflateInfo = zlib.inflateSync as unknown as (
    b: Buffer,
    o: { info: true; maxOutputLength: number },
  ) => { buffer: Buffer; engine: { bytesWritten: number } };
  const r = inflateInfo(bytes, { info: true, maxOutputLength: MAX_LOOSE_OBJECT });
  return { data: r.buffer, end: r.engine.bytesWritten };
}

/**
 * A loose object's type and body, checked against its id; undefined when it is not stored loose (packed, or in an
 * alternate: git can answer). Throws when the file is there but is not that object, as git reads it: bytes after
 * the zlib stream's end included (git: "garbage at end of loose object"; zlib alone would ignore them).
 */
export function readLooseObject(commonDir: string, oid: string): { type: string; body: Buffer } | undefined {
  if (!OID.test(oid)) return undefined;
  const bytes = readRegularFile(path.join(commonDir, 'objects', oid.slice(0, 2), oid.slice(2)));
  if (bytes === undefined) return undefined;
  const { data: raw, end } = inflateLoose(bytes);
  if (end !== bytes.length) throw new Error(`loose object ${oid}: garbage at its end`);
  if (createHash('sha1').update(raw).digest('hex') !== oid) throw new Error(`loose object ${oid}: corrupt`);
  const nul = raw.indexOf(0);
  // The size in canonical decimal, as git's parse_loose_header takes it: `commit 0123` is refused by git ("unable
  // to parse ... header") though it hashes to its name, so it is refused here too.
  const m = nul < 0 ? null : /^([a-z]+) (0|[1-9][0-9]*)$/.exec(raw.toString('latin1', 0, nul));
  if (m === null || Number(m[2]) !== raw.length - nul - 1) throw new Error(`loose object ${oid}: corrupt`);
  return { type: m[1]!, body: raw.subarray(nul + 1) };
}

/** The tree a commit names, when the commit is a loose object; undefined otherwise (git can answer). */
export function looseCommitTree(commonDir: string, commit: string): string | undefined {
  const o = readLooseObject(commonDir, commit);
  if (o === undefined || o.type !== 'commit') return undefined;
  const m = /^tree ([0-9a-f]{40})\n/.exec(o.body.toString('latin1', 0, 46));
  return m === null ? undefined : m[1];
}

/** A loose ref is one line (an object id, or `ref: ` and a name): anything larger is not one git wrote. */
const MAX_LOOSE_REF_BYTES = 4096;
/**
 * The commit a ref (`refs/...`, shared by every worktree) points to, from its loose file or `packed-refs`;
 * undefined when neither names it plainly (a symbolic ref, a ref that is not there): git can answer.
 */
export function readRef(commonDir: string, ref: string): string | undefined {
  // A directory, a link or a file larger than any ref in its place: throws.
  const loose = readRegularFile(path.join(commonDir, ref), { maxBytes: MAX_LOOSE_REF_BYTES });
  if (loose !== undefined) {
    const m = /^([0-9a-f]{40})\n?$/.exec(loose.toString('latin1'));
    return m === null ? undefined : m[1];
  }
  if (!looseMissing(commonDir, ref)) return undefined;
  return withPackedRefs(commonDir, null, (p) => p.find(ref)) ?? undefined;
}

/**
 * Whether `ref` is certainly not in the repository: refs are kept as files here (`witness`, a ref just written, is a
 * loose file) and neither a loose file nor `packed-refs` names `ref`. False whenever that cannot be told plainly (a
 * reftable, a link in the way): git answers then.
 */
export function refAbsent(commonDir: string, ref: string, witness: string): boolean {
  try {
    if (!regularFileExists(path.join(commonDir, witness))) return false;
    if (regularFileExists(path.join(commonDir, ref))) return false;
    return withPackedRefs(commonDir, null, (p) => p.find(ref)) === null;
  } catch {
    return false;
  }
}

/**
 * Whether `packed-refs` holds no ref named like a directory of `ref`, nor one below it (false: cannot tell). Every
 * directory, `refs` itself included: git's refs_verify_refname_available looks up each one (a packed ref named
 * `refs`, which git takes as a one-level name, makes it refuse every `refs/...`).
 */
function noPackedConflict(p: PackedRefs, ref: string): boolean {
  return p.anyUnder(`${ref}/`) === false && refDirectories(ref).every((d) => p.find(d) === null);
}

/**
 * Points `ref` (`refs/...`, shared by every worktree) at `oid` as `git update-ref` does in a files backend: a
 * `<ref>.lock` created exclusively, the value written, renamed over the ref. Returns false having changed nothing
 * when git has more to do or to refuse: a reflog for the ref, a `packed-refs` entry in the way (a ref named like
 * one of its directories, or below it), a lock held, a file or directory in the way. The caller then runs git.
 */
export function writeLooseRef(repo: LooseRepo, ref: string, oid: string): boolean {
  if (!OID.test(oid) || !ref.startsWith('refs/')) return false;
  const file = path.join(repo.commonDir, ref);
  // A reflog already kept for this ref is appended to by git whatever the configuration says.
  try {
    if (regularFileExists(path.join(repo.commonDir, 'logs', ref))) return false;
  } catch {
    return false;
  }
  // git refuses a ref whose name is a directory of another (either way): leave that to it.
  try {
    if (!(withPackedRefs(repo.commonDir, true, (p) => noPackedConflict(p, ref)) ?? false)) return false;
  } catch {
    return false;
  }
  if (!realDirs(repo.commonDir, path.dirname(file))) return false;
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o666);
  } catch {
    return false; // held (or left by a killed git: the caller clears a stale one first), or in the way
  }
  try {
    try {
      const line = Buffer.from(`${oid}\n`, 'latin1');
      writeSync(fd, line, 0, line.length);
    } finally {
      closeSync(fd);
    }
    renameSync(lock, file);
    return true;
  } catch {
    try {
      unlinkSync(lock);
    } catch {
      /* gone */
    }
    return false;
  }
}
