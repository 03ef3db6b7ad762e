// Lint step: fails when the modules under src/ import each other in a circle (type-only imports count too: a circle of
// types is still two rooms that cannot be read apart). Prints each circle as the files it ties, exit 1.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm;

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [p] : [];
  });
}

function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      if (statSync(c).isFile()) return c;
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

const files = sources(root);
const edges = new Map(
  files.map((f) => {
    const text = readFileSync(f, 'utf8');
    const to = [...text.matchAll(IMPORT)].map((m) => resolve(f, m[1])).filter((t) => t !== undefined);
    return [f, [...new Set(to)]];
  }),
);

// Tarjan's strongly connected components: every component of more than one file (or a file importing itself) is a
// circle.
let index = 0;
const stack = [];
const info = new Map();
const circles = [];
function visit(v) {
  info.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v) ?? []) {
    if (!info.has(w)) {
      visit(w);
      info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
    } else if (info.get(w).onStack) info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
  }
  if (info.get(v).low !== info.get(v).index) return;
  const component = [];
  for (;;) {
    const w = stack.pop();
    info.get(w).onStack = false;
    component.push(w);
    if (w === v) break;
  }
  if (component.length > 1 || (edges.get(v) ?? []).includes(v)) circles.push(component);
}
for (const f of files) if (!info.has(f)) visit(f);

if (circles.length > 0) {
  const rel = (f) => path.relative(path.join(root, '..'), f);
  for (const c of circles) console.error(`import circle: ${c.map(rel).sort().join(' <-> ')}`);
  process.exit(1);
}
console.log(`import circles: none (${files.length} modules under src/)`);
