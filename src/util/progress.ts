import { sanitize } from './terminal';

/**
 * Progress of a long operation on a terminal (docs/journal.md, "Progress"): after
 * about a second, one line on stderr rewritten in place (`\r`), cleared when
 * done; nothing at all when stderr is not a terminal (piped or redirected).
 * `STEPCHAIN_PROGRESS_AFTER_MS` moves the first appearance (tests set 0).
 */
export interface TerminalProgress {
  /** Reports bytes done of the total (cheap to call often: prints at most every 100 ms). */
  update(done: number, total: number): void;
  /** Clears the line if anything was shown. */
  done(): void;
}

const MB = 1024 * 1024;

export function terminalProgress(
  label: string,
  env: NodeJS.ProcessEnv = process.env,
  stream: NodeJS.WriteStream = process.stderr,
): TerminalProgress | undefined {
  if (!stream.isTTY) return undefined;
  const after = Number(env.STEPCHAIN_PROGRESS_AFTER_MS ?? 1000);
  const start = Date.now();
  let last = 0;
  let shown = false;
  // A label (a file name) goes through the one terminal sanitiser: nothing in it moves the cursor or reorders the line.
  const safe = sanitize(label);
  return {
    update(done, total) {
      const now = Date.now();
      if (now - start < (Number.isFinite(after) ? after : 1000) || now - last < 100) return;
      last = now;
      shown = true;
      const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
      const tail = `: ${(done / MB).toFixed(0)} of ${(total / MB).toFixed(0)} MB (${pct}%)`;
      // One terminal row, or the \r would rewrite only the last of several.
      const room = Math.max(10, (stream.columns || 80) - 1 - tail.length);
      const head = safe.length > room ? `…${safe.slice(safe.length - room + 1)}` : safe;
      stream.write(`\r\x1b[K${head}${tail}`);
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
