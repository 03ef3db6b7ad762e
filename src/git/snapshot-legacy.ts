import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The temporary index directories earlier releases left in the system temp dir (./snapshot.ts makes its own in .git). */

let legacyCleaned = false;
/**
 * Earlier releases made the temporary index directory in the system temp dir
 * (`stepchain-snap-XXXXXX`, no pid in the name): at most once per process
 * (and on every 100th step: see takeSnapshot), those of ours older than an
 * hour (no snapshot takes that long) are removed.
 */
export function cleanLegacySnapshotDirs(): void {
  if (legacyCleaned) return;
  legacyCleaned = true;
  const dir = tmpdir();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^stepchain-snap-[A-Za-z0-9]{6}$/.test(n));
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const st = lstatSync(path.join(dir, name));
      if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid())) continue;
      if (Date.now() - st.mtimeMs > 3600_000) rmSync(path.join(dir, name), { recursive: true, force: true });
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
}
