import { spawn } from 'node:child_process';
import { simpleGit, type SimpleGit } from 'simple-git';
import { InputError } from '../errors';
import { matchesGlob, type GlobSet } from './glob';

/**
 * Reading the files of another commit (a PR's base) without checking it out.
 * A shallow checkout (the default of actions/checkout) does not have the base:
 * `ensureCommit` fetches exactly that commit, one level deep.
 */
function git(cwd: string): SimpleGit {
  return simpleGit({ baseDir: cwd, trimmed: false });
}

function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return (
    msg
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? 'git failed'
  );
}

async function hasCommit(g: SimpleGit, sha: string): Promise<boolean> {
  try {
    await g.raw(['cat-file', '-e', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Makes sure `sha` is present, fetching it from `remote` when it is not. Returns whether a fetch happened. */
export async function ensureCommit(cwd: string, sha: string, remote = 'origin'): Promise<boolean> {
  if (!/^[0-9a-f]{7,64}$/i.test(sha)) throw new InputError(`bad commit id ${JSON.stringify(sha)}`);
  const g = git(cwd);
  try {
    await g.raw(['rev-parse', '--git-dir']);
  } catch {
    throw new InputError(`${cwd}: not a git repository (the append-only check needs the checkout's history)`);
  }
  if (await hasCommit(g, sha)) return false;
  try {
    await g.raw(['fetch', '--no-tags', '--no-recurse-submodules', '--depth=1', remote, sha]);
  } catch (e) {
    throw new InputError(`cannot fetch the base commit ${sha} from ${remote}: ${oneLine(e)}`);
  }
  if (!(await hasCommit(g, sha)))
    throw new InputError(`the base commit ${sha} is still missing after fetching it from ${remote}`);
  return true;
}

/** Paths (relative, `/`-separated) of the blobs in `commit` that match the set, sorted. */
export async function listFilesAtCommit(cwd: string, commit: string, set: GlobSet): Promise<string[]> {
  let out: string;
  try {
    out = await git(cwd).raw(['ls-tree', '-r', '-z', '--full-tree', '--name-only', commit]);
  } catch (e) {
    throw new InputError(`cannot list the files of commit ${commit}: ${oneLine(e)}`);
  }
  return out
    .split('\0')
    .filter((p) => p !== '' && matchesGlob(set, p))
    .sort();
}

/**
 * The contents of `paths` at `commit`, read through one `git cat-file --batch`
 * process (one process for any number of files keeps a large PR fast).
 * A path missing at that commit maps to undefined.
 */
export function readFilesAtCommit(
  cwd: string,
  commit: string,
  paths: string[],
): Promise<Map<string, Buffer | undefined>> {
  return new Promise((resolve, reject) => {
    const result = new Map<string, Buffer | undefined>();
    if (paths.length === 0) {
      resolve(result);
      return;
    }
    const child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (e) => reject(new InputError(`cannot run git: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new InputError(`git cat-file failed: ${stderr.trim().split('\n').pop() ?? `exit ${code}`}`));
        return;
      }
      const out = Buffer.concat(chunks);
      let pos = 0;
      for (const p of paths) {
        const nl = out.indexOf(0x0a, pos);
        if (nl < 0) {
          reject(new InputError('git cat-file: truncated output'));
          return;
        }
        const header = out.subarray(pos, nl).toString('utf8');
        pos = nl + 1;
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (m === null) {
          result.set(p, undefined); // "<object> missing" (or ambiguous): not at that commit
          continue;
        }
        const size = Number(m[2]);
        result.set(p, m[1] === 'blob' ? Buffer.from(out.subarray(pos, pos + size)) : undefined);
        pos += size + 1; // content, then a newline
      }
      resolve(result);
    });
    // Names with a newline cannot be asked for on this protocol; they never match our layouts.
    child.stdin.end(paths.map((p) => `${commit}:${p.includes('\n') ? '' : p}\n`).join(''));
  });
}

/** The commit id a ref names (a branch, tag, `HEAD~1`, an id); an input error when it names none. */
export async function resolveCommit(cwd: string, ref: string): Promise<string> {
  if (ref.startsWith('-')) throw new InputError(`bad ref ${JSON.stringify(ref)}`);
  let out = '';
  try {
    out = (await git(cwd).raw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  } catch {
    /* below */
  }
  // `--quiet` makes a missing ref an empty answer, not an error: never pass "" on as a commit.
  if (!/^[0-9a-f]{40,64}$/.test(out))
    throw new InputError(`--base ${ref}: no such commit in ${cwd} (a branch, tag or commit id; fetch it first?)`);
  return out;
}
