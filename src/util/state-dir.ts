import { homedir, userInfo } from 'node:os';
import path from 'node:path';

/**
 * stepchain's per-user state directory (the audit and checkpoint keys; the bin's code cache follows the same rule,
 * scripts/build-launcher.mjs): `$XDG_STATE_HOME/stepchain`, else `~/.local/state/stepchain`. A relative
 * XDG_STATE_HOME is no state directory (the XDG spec says to ignore it), and a relative HOME no home: either would
 * name a directory of whatever project stepchain runs in, which a repository can fill with a key of its choosing.
 */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const home = absoluteHome(env);
  const xdg = env.XDG_STATE_HOME;
  const base =
    xdg === '~' || xdg?.startsWith('~/')
      ? path.join(home, xdg.slice(1))
      : xdg !== undefined && path.isAbsolute(xdg)
        ? xdg
        : path.join(home, '.local', 'state');
  return path.resolve(base, 'stepchain');
}

/** `$HOME` when it is an absolute path, else the user's home as the system's user database has it. */
function absoluteHome(env: NodeJS.ProcessEnv): string {
  for (const h of [env.HOME, homedir()]) if (h !== undefined && path.isAbsolute(h)) return h;
  return userInfo().homedir;
}
