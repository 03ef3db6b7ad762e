// Lint step: the size rule (no source file over 500 lines, no function over 120) for the AssemblyScript under
// src/journal/wasm/assembly, which ESLint cannot parse (decorators on functions, `@inline`) and so skips. Every
// line counts, as in the ESLint rule; a function runs from its `function` line to the `}` that closes it at the
// start of a line (these files are Prettier-shaped: top-level declarations only). A function may be the exception as
// in ESLint, said on the line above it: `// eslint-disable-next-line max-lines-per-function -- why`. Prints each
// breach, exit 1.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX_FILE = 500;
const MAX_FUNCTION = 120;
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXEMPT = /eslint-disable-next-line max-lines-per-function -- \S/;
const dir = path.join(root, 'src', 'journal', 'wasm', 'assembly');

const problems = [];
for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
  const rel = path.relative(root, path.join(dir, name));
  const lines = readFileSync(path.join(dir, name), 'utf8').replace(/\n$/, '').split('\n');
  if (lines.length > MAX_FILE) problems.push(`${rel}: ${lines.length} lines (at most ${MAX_FILE})`);
  let start = -1;
  lines.forEach((line, i) => {
    if (start < 0 && /^(?:@\w+\s+)?(?:export\s+)?function\s/.test(line)) {
      if (!EXEMPT.test(lines[i - 1] ?? '')) start = i;
    } else if (start >= 0 && line.startsWith('}')) {
      const n = i - start + 1;
      if (n > MAX_FUNCTION) problems.push(`${rel}:${start + 1}: a function of ${n} lines (at most ${MAX_FUNCTION})`);
      start = -1;
    }
  });
}
for (const p of problems) process.stderr.write(`${p}\n`);
process.exit(problems.length > 0 ? 1 : 0);
