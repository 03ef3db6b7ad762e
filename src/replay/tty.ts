import { parseKeys } from './keys';
import { renderScreen, type ScreenLine } from './screen';
import { initialState, reduce, walkedSteps, type ReplayState } from './walk';
import type { ReplaySource } from './source';
import { sanitize } from '../util/terminal';

/**
 * The tiny terminal driver of the interactive walk: raw keys in, ANSI out. All
 * decisions live in walk.ts (keys) and screen.ts (layout); this only paints, and always gives the terminal
 * back (normal screen, cursor, cooked mode) on quit, error, SIGINT and SIGTERM.
 */

export interface TtyOptions {
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
  /**
   * Forks the run from a step (after the operator confirmed); resolves to the
   * lines to show in full (the new worktree, its branch). Absent: `f` is not offered.
   */
  fork?: (seq: number) => Promise<string | string[]> | string | string[];
  /** The step to start on (default 0). */
  start?: number;
  /** Walk only the first `limit` steps (`replay --limit N`). */
  limit?: number;
  /** How the caller's user names the limit (the door's words: `--limit`; default `limit`). */
  limitName?: string;
}

const STYLE: Partial<Record<NonNullable<ScreenLine['style']>, string>> = {
  header: '\x1b[7m',
  'header-warn': '\x1b[7;33m',
  rule: '\x1b[2m',
  label: '\x1b[1m',
  dim: '\x1b[2m',
  marker: '\x1b[2;3m',
  change: '\x1b[36m',
  warn: '\x1b[31m',
  prompt: '\x1b[1m',
};

/**
 * Each line is cleared first and then written whole (lines are exactly the
 * screen width): erasing after the text would, in a terminal's pending-wrap
 * state at the last column, erase the line's last character. The text goes
 * through the terminal sanitiser here, at the sink, whatever built it: only
 * the painter's own sequences reach the terminal.
 */
function paint(lines: ScreenLine[]): string {
  let s = '';
  lines.forEach((l, i) => {
    const on = l.style ? (STYLE[l.style] ?? '') : '';
    s += `\x1b[${i + 1};1H\x1b[2K${on}${sanitize(l.text)}${on ? '\x1b[0m' : ''}`;
  });
  return s;
}

/** Runs the interactive walk until `q`; resolves when the terminal is restored. */
export function runInteractive(source: ReplaySource, options: TtyOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const walk = {
    canFork: options.fork !== undefined,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.limitName === undefined ? {} : { limitName: options.limitName }),
  };
  const steps = walkedSteps(source, initialState(0, walk));
  let state: ReplayState = initialState(Math.min(Math.max(0, options.start ?? 0), Math.max(0, steps - 1)), walk);
  const size = (): { width: number; height: number } => ({ width: output.columns || 80, height: output.rows || 24 });
  let busy = false;
  let restored = false;

  return new Promise<void>((resolve) => {
    const render = (): void => {
      output.write(paint(renderScreen(source, state, size())));
    };
    const restore = (): void => {
      if (restored) return;
      restored = true;
      input.off('data', onData);
      output.off('resize', render);
      process.off('SIGWINCH', render);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', restore);
      if (input.isTTY) input.setRawMode(false);
      input.pause();
      output.write('\x1b[0m\x1b[?25h\x1b[?1049l');
    };
    const onSignal = (sig: NodeJS.Signals): void => {
      restore();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    };
    const quit = (): void => {
      restore();
      resolve();
    };
    const doFork = async (): Promise<void> => {
      if (!options.fork) {
        state = { ...state, message: 'fork is not available here' };
        return;
      }
      busy = true;
      render();
      try {
        const said = await options.fork(state.index);
        // The result is shown whole, in a panel (a footer line would cut the worktree path and branch).
        state = { ...state, message: '', panel: typeof said === 'string' ? [said] : said };
      } catch (e) {
        state = { ...state, message: '', panel: ['fork failed', '', ...(e as Error).message.split('\n')] };
      } finally {
        busy = false;
      }
    };
    function onData(chunk: Buffer | string): void {
      if (busy) return; // keys typed while a fork runs are dropped
      for (const key of parseKeys(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))) {
        const r = reduce(state, key, source, size());
        state = r.state;
        if (r.action === 'quit') return quit();
        if (r.action === 'fork') {
          void doFork().then(render);
          return;
        }
      }
      render();
    }

    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('exit', restore);
    process.on('SIGWINCH', render);
    output.on('resize', render);
    output.write('\x1b[?1049h\x1b[?25l');
    if (input.isTTY) input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
    render();
  });
}
