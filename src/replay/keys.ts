import { displayWidth } from './text';

/** The replay's keys: raw terminal input read as keys, the key list (`?`) and the footer's key hints. */

export type Key =
  | { kind: 'char'; char: string }
  | {
      kind:
        | 'right'
        | 'left'
        | 'up'
        | 'down'
        | 'pgup'
        | 'pgdn'
        | 'home'
        | 'end'
        | 'enter'
        | 'escape'
        | 'backspace'
        | 'interrupt';
    };

/** Splits raw terminal input into keys (arrow keys arrive as escape sequences, several keys may share a chunk). */
export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const c = data[i]!;
    if (c === '\x1b') {
      const rest = data.slice(i);
      const m = /^\x1b(?:\[|O)([0-9;]*)([A-Za-z~])/.exec(rest);
      if (m) {
        const code = m[2] === '~' ? `${m[1]}~` : m[2]!;
        const map: Record<string, Key['kind']> = {
          A: 'up',
          B: 'down',
          C: 'right',
          D: 'left',
          H: 'home',
          F: 'end',
          '5~': 'pgup',
          '6~': 'pgdn',
          '1~': 'home',
          '4~': 'end',
          '7~': 'home',
          '8~': 'end',
        };
        const kind = map[code];
        if (kind !== undefined) keys.push({ kind } as Key);
        i += m[0].length;
        continue;
      }
      keys.push({ kind: 'escape' });
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') keys.push({ kind: 'enter' });
    else if (c === '\x7f' || c === '\b') keys.push({ kind: 'backspace' });
    else if (c === '\x03' || c === '\x04') keys.push({ kind: 'interrupt' });
    else if (c >= ' ') {
      const cp = data.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      keys.push({ kind: 'char', char: ch });
      i += ch.length;
      continue;
    }
    i++;
  }
  return keys;
}

/** A panel line; `indent` is where its wrapped continuation lines start (a key list's description column). */
export type PanelLine = string | { text: string; indent: number };

/** The column a key's description starts at in the key list. */
const KEY_COLUMN = 18;

/** Every key, for `?`: shown in a panel instead of the step. */
export function keyList(canFork: boolean): PanelLine[] {
  const rows: [string, string][] = [
    ['n  →  l', 'next step'],
    ['p  ←  h', 'previous step'],
    ['g  Home', 'first step'],
    ['G  End', 'last step'],
    ['digits ⏎', 'jump to that seq (Esc cancels)'],
    ['/text ⏎', 'search every field and hash (case-insensitive, wraps around)'],
    ['/ ⏎', 'the same search again, forward'],
    ['N', 'the same search, backward'],
    ['⏎', 'expand: every field in full (again: collapse)'],
    ['↑ ↓  j k', 'scroll one line'],
    ['PgUp PgDn Space', 'scroll one page'],
    ...(canFork
      ? ([['f', 'fork the run at this step into a new git worktree and branch (asks first)']] as [string, string][])
      : []),
    ['?', 'this list'],
    ['q  Ctrl-C', 'quit'],
  ];
  return [
    'Keys (any key returns to the step)',
    '',
    ...rows.map(([k, what]) => ({ text: `  ${k.padEnd(KEY_COLUMN - 3)} ${what}`, indent: KEY_COLUMN })),
  ];
}

// Key hints in display order, with a priority: on a narrow screen the footer keeps the most important ones.
// `? keys` is how every other key is found, so it stays with the essentials.
const HINTS: [string, number][] = [
  ['n/→ next', 1],
  ['p/← prev', 1],
  ['g/G first/last', 3],
  ['seq⏎ jump', 4],
  ['/ search', 2],
  ['⏎ expand', 5],
  ['↑↓ scroll', 7],
  ['f fork', 6],
  ['? keys', 1],
  ['q quit', 0],
];

/** The key hints that fit in `width` columns, most important first (`f fork` only where it works). */
export function keyHints(width: number, canFork = true): string {
  const chosen = new Set<string>();
  let used = 0;
  const hints = HINTS.filter(([h]) => canFork || h !== 'f fork');
  for (const [hint] of [...hints].sort((a, b) => a[1] - b[1])) {
    const w = displayWidth(hint) + (chosen.size > 0 ? 2 : 0);
    if (used + w > width) continue;
    chosen.add(hint);
    used += w;
  }
  return hints
    .filter(([h]) => chosen.has(h))
    .map(([h]) => h)
    .join('  ');
}
