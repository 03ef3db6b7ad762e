import { spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { extract } from 'tar';
import { repoRoot } from './paths';

/**
 * Which Chromium the browser tests drive, in this order:
 * 1. `CHROMIUM_PATH` (it must be an executable: a wrong value fails, it does not fall through);
 * 2. the system's (`chromium`, `chromium-browser`, `google-chrome`, `google-chrome-stable` on PATH or in
 *    the usual places);
 * 3. the `@sparticuz/chromium` devDependency, which ships a Chromium binary (brotli-compressed) and the
 *    libraries it needs inside its npm package: unpacked once into node_modules/.cache.
 * There is no "skip": a machine where none of them runs fails the browser tests.
 */
export interface ChromiumChoice {
  executablePath: string;
  /** Extra environment the binary needs (the bundled one: its libraries and fonts). */
  env: Record<string, string>;
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
];

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function systemChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const onPath = (env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of SYSTEM_NAMES) for (const d of onPath) if (executable(join(d, name))) return join(d, name);
  return SYSTEM_PATHS.find(executable);
}

/** The unpacked @sparticuz/chromium binary (unpacked on first use; safe when several test workers race). */
export function bundledChromium(): ChromiumChoice {
  const pkgDir = join(dirname(require.resolve('@sparticuz/chromium')), '..', '..');
  const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const cache = join(repoRoot, 'node_modules', '.cache', 'stepchain-chromium', version);
  const binary = join(cache, 'chromium');
  if (!existsSync(join(cache, '.complete'))) {
    const tmp = `${cache}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    mkdirSync(tmp, { recursive: true });
    try {
      writeFileSync(join(tmp, 'chromium'), brotliDecompressSync(readFileSync(join(pkgDir, 'bin', 'chromium.br'))));
      chmodSync(join(tmp, 'chromium'), 0o755);
      for (const pack of ['al2023', 'fonts']) {
        const tar = join(tmp, `${pack}.tar`);
        writeFileSync(tar, brotliDecompressSync(readFileSync(join(pkgDir, 'bin', `${pack}.tar.br`))));
        mkdirSync(join(tmp, pack));
        extract({ file: tar, cwd: join(tmp, pack), sync: true });
        rmSync(tar);
      }
      // Its fonts.conf points at /tmp/fonts (AWS Lambda's layout): point it at the fonts beside it.
      writeFileSync(
        join(tmp, 'fonts', 'fonts.conf'),
        `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
          `  <dir>${join(cache, 'fonts', 'fonts')}</dir>\n  <cachedir>${join(cache, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
      );
      writeFileSync(join(tmp, '.complete'), '');
      mkdirSync(dirname(cache), { recursive: true });
      try {
        renameSync(tmp, cache);
      } catch (e) {
        // Another worker got there first: its copy is complete (it renames only then).
        if (!existsSync(join(cache, '.complete'))) throw e;
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const fonts = join(cache, 'fonts');
  return {
    executablePath: binary,
    env: {
      LD_LIBRARY_PATH: [join(cache, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH ?? '']
        .filter((p) => p !== '')
        .join(':'),
      FONTCONFIG_PATH: fonts,
    },
    source: '@sparticuz/chromium',
  };
}

/** The Chromium to drive (see the order above). Throws, never skips, when none is usable. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumChoice {
  const given = env.CHROMIUM_PATH;
  if (given !== undefined && given !== '') {
    if (!executable(given)) throw new Error(`CHROMIUM_PATH=${given} is not an executable file`);
    return { executablePath: given, env: {}, source: 'CHROMIUM_PATH' };
  }
  const system = systemChromium(env);
  if (system !== undefined) return { executablePath: system, env: {}, source: 'system' };
  return bundledChromium();
}

/** The browser's version line (a quick "does it start at all" check). */
export function chromiumVersion(choice: ChromiumChoice): string {
  const r = spawnSync(choice.executablePath, ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, ...choice.env },
    timeout: 30_000,
  });
  return `${r.stdout}${r.stderr}`.trim();
}
