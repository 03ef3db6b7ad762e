import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import { stateDir } from '../src/util/state-dir';

/** The per-user state directory (keys): never a path relative to the project stepchain runs in. */
test('a relative XDG_STATE_HOME or HOME names no directory of the current one', () => {
  const home = path.isAbsolute(homedir()) ? homedir() : userInfo().homedir;
  expect(stateDir({ HOME: '/h', XDG_STATE_HOME: '/x' })).toBe(path.join('/x', 'stepchain'));
  expect(stateDir({ HOME: '/h', XDG_STATE_HOME: 'rel' })).toBe(path.join('/h', '.local', 'state', 'stepchain'));
  expect(stateDir({ HOME: '/h', XDG_STATE_HOME: '~/s' })).toBe(path.join('/h', 's', 'stepchain'));
  for (const rel of ['.', 'rel', './x'])
    for (const xdg of [undefined, '~', '~/s']) {
      const dir = stateDir({ HOME: rel, ...(xdg === undefined ? {} : { XDG_STATE_HOME: xdg }) });
      expect(path.isAbsolute(dir) && !dir.startsWith(process.cwd() + path.sep)).toBe(true);
      expect(dir.startsWith(home)).toBe(true);
    }
});
