import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { mkdirs } from '../util/mkdirs';
import { homedir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors';
import { fsyncDir, writeAll } from '../util/fs';
import { stateDir } from '../util/state-dir';
import { sleepMs } from '../util/time';

/**
 * The audit HMAC key (docs/format.md §5). Like the reference `load_or_create_audit_key`,
 * the key file holds 64 lowercase hex characters (32 random bytes, hex-encoded,
 * no newline) and the HMAC key is the file's bytes with surrounding ASCII
 * whitespace stripped: the hex *text*, not the 32 decoded bytes. Any other
 * non-empty content is used as is, so a key written by the reference works.
 */
export interface AuditKey {
  path: string;
  bytes: Buffer;
}

/** Where the key lives: explicit path, else the environment, else the XDG state directory. */
export function resolveAuditKeyPath(env: NodeJS.ProcessEnv, explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return path.resolve(explicit);
  const fromEnv = env.STEPCHAIN_AUDIT_KEY_PATH || env.BERNSTEIN_AUDIT_KEY_PATH;
  if (fromEnv) return path.resolve(expandHome(fromEnv, env));
  return path.join(stateDir(env), 'audit.key');
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  return p === '~' || p.startsWith('~/') ? path.join(homeOf(env), p.slice(1)) : p;
}

/** Python `bytes.strip()`: ASCII whitespace (space, \t \n \v \f \r) off both ends. */
function stripAscii(b: Buffer): Buffer {
  const ws = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
  let s = 0;
  let e = b.length;
  while (s < e && ws(b[s]!)) s++;
  while (e > s && ws(b[e - 1]!)) e--;
  return b.subarray(s, e);
}

const why = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/**
 * A directory the key lives in must be one nobody else can write: owned by you
 * (or root) and not group- or world-writable. Otherwise another user could
 * swap the key (or plant one before it is created) and forge the chain.
 */
function checkKeyDir(dir: string, file: string, uid: number): void {
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    throw new InputError(`${file}: cannot check the audit key's directory ${dir}: ${why(e)}`);
  }
  if (st.uid !== uid && st.uid !== 0)
    throw new InputError(`${file}: the audit key's directory ${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`);
  if ((st.mode & 0o022) !== 0)
    throw new InputError(
      `${file}: the audit key's directory ${dir} is writable by ${st.mode & 0o002 ? 'everyone' : 'its group'} ` +
        `(mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}): another user could replace the key; keep it in a directory only you can write (chmod 700)`,
    );
}

/** The directories whose permissions guard `file`: its own, and through a symlink, the target's. */
function guardingDirs(file: string): string[] {
  const dirs = [path.dirname(file)];
  try {
    if (lstatSync(file).isSymbolicLink()) dirs.push(path.dirname(realpathSync(file)));
  } catch {
    /* checked when opened */
  }
  return dirs;
}

/** The largest audit key read (the bound of a receipt's key file). */
const MAX_KEY_BYTES = 64 * 1024;

function readKey(file: string): AuditKey {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new InputError(`${file}: cannot read audit key: ${why(e)}`);
  }
  try {
    // The checks are on the open descriptor: what is read is what was checked.
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(`${file}: audit key is not a regular file`);
    const mode = st.mode & 0o777;
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new InputError(
        `${file}: audit key has insecure permissions ${mode.toString(8).padStart(4, '0')} (group or others can access it); ` +
          `required 0600: chmod 600 ${file}`,
      );
    }
    const uid = process.getuid?.();
    if (uid !== undefined) {
      if (st.uid !== uid)
        throw new InputError(
          `${file}: the audit key belongs to uid ${st.uid}, not to you (uid ${uid}); a key someone else owns cannot vouch for your log`,
        );
      for (const dir of guardingDirs(file)) checkKeyDir(dir, file, uid);
    }
    // A key is 64 hex digits as init writes it; one a person gives may be longer, never megabytes: not held whole.
    if (st.size > MAX_KEY_BYTES)
      throw new InputError(`${file}: audit key holds ${st.size} bytes, more than the ${MAX_KEY_BYTES} allowed`);
    let bytes: Buffer;
    try {
      bytes = stripAscii(readFileSync(fd));
    } catch (e) {
      throw new InputError(`${file}: cannot read audit key: ${why(e)}`);
    }
    if (bytes.length === 0) throw new InputError(`${file}: audit key is empty`);
    return { path: file, bytes };
  } finally {
    closeSync(fd);
  }
}

/** Reads a key another process is creating right now: wait (briefly) for its bytes. */
function adoptKey(file: string): AuditKey {
  for (let i = 0; ; i++) {
    try {
      return readKey(file);
    } catch (e) {
      if (i >= 100 || !(e instanceof InputError) || !/is empty$/.test(e.message)) throw e;
      sleepMs(10);
    }
  }
}

/**
 * Loads the key at `file`. With `create`, a missing key is generated first
 * (0600, created exclusively so two first writers agree on one key, in a
 * directory made 0700). Refuses (InputError, exit 2) a key that group or
 * others can access, one owned by another user (also through a symlink), one
 * in a directory another user can write (the link's or the target's), an
 * empty key, or a missing one without `create`.
 */
export function loadAuditKey(file: string, options: { create?: boolean } = {}): AuditKey {
  let exists = true;
  try {
    statSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return readKey(file);
    exists = false;
  }
  // An existing key may be one another first writer has created and not yet filled (its exclusive create and its
  // write are two steps): wait for its bytes as when the exclusive create loses, rather than call it empty.
  if (exists) return options.create ? adoptKey(file) : readKey(file);
  if (!options.create)
    throw new InputError(`${file}: no audit key (give the key's file, or set STEPCHAIN_AUDIT_KEY_PATH)`, 'key');
  const dir = path.dirname(file);
  // An existing directory is checked before a key is made in it (a new one is made 0700 below).
  const uid = process.getuid?.();
  if (uid !== undefined && existsSync(dir)) checkKeyDir(dir, file, uid);
  let made: string | undefined;
  try {
    made = mkdirs(dir, 0o700);
    if (made !== undefined) chmodSync(dir, 0o700); // umask may have dropped bits; never wider than 0700
  } catch (e) {
    throw new InputError(
      `${dir}: cannot create the audit key directory: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return adoptKey(file); // another first writer won: adopt its key
    throw new InputError(
      `${file}: cannot create audit key: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  try {
    const text = Buffer.from(randomBytes(32).toString('hex'), 'ascii');
    writeAll(fd, text);
    // Its bytes before its name (fsyncDir below): a crash must not leave a key file that is there but empty.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o600);
  fsyncDir(dir);
  return readKey(file);
}
