// dist/index.js, the Action, is one file (action.yml runs it; CI compares it with a rebuild) that carries its rarely
// used parts as programs compiled only when a run needs them: the artifact client (Azure storage, protobuf, zip) is
// about 40% of the Action's code, and V8 parses every byte of a script's code as it starts, while a comment it only
// skips. A run that uploads nothing (most pull-request checks) no longer pays for compiling it.
import { createHash } from 'node:crypto';
import { CARRIED_READER, packBytes } from './carried.mjs';

/**
 * The Action's text: `main` (the bundle) after a loader, `__stepchainCarried(name)` (src/action/carried.ts), and each
 * of `programs` (name: CommonJS script text) after it, packed (carried.mjs packBytes: brotli at its best, base64: no
 * `*` and no newline in it) in a line comment of its own, the last lines of the file (a file cut short inside a block
 * comment is a SyntaxError that prints the comment as its source line; a line comment cut short still parses, and the
 * loader refuses it). The loader reads back only a program's own bytes, found by where it starts counted from the
 * file's end, checks the comment's opening and close around them, their SHA-256 and the unpacked length (bytes) (a
 * file with bytes added, cut or changed at its end would otherwise hand V8 other bytes), compiles it as a CommonJS
 * module of this file and keeps its exports for the run.
 */
export function actionSource(main, programs) {
  const spans = {};
  const blocks = [];
  let back = 0;
  for (const [name, text] of Object.entries(programs).reverse()) {
    const bytes = Buffer.from(text, 'utf8');
    const body = packBytes(bytes);
    back += body.length + 3;
    spans[name] = [back, body.length, bytes.length, createHash('sha256').update(body, 'latin1').digest('hex')];
    blocks.unshift(`//${body}\n`);
  }
  const loader = `var __stepchainCarried = (() => {
  const spans = ${JSON.stringify(spans)};
  const done = new Map();
  const damaged = (why = 'the programs it carries are not where it says (bytes were added or cut)') =>
    new Error(\`\${__filename}: damaged: \${why}\`);
  ${CARRIED_READER.replaceAll('\n', '\n  ').trimEnd()}
  function text(name) {
    const [back, length, textLength, sha] = spans[name];
    const bytes = carriedBytes(back, length, true, true);
    if (bytes === undefined) throw damaged();
    // Brotli has no checksum: changed bytes of the same length can unpack to another text of that length (it ran).
    if (require('node:crypto').createHash('sha256').update(bytes).digest('hex') !== sha)
      throw damaged('a program it carries is not the one it was built with (bytes were changed)');
    const out = unpackCarried(bytes, textLength);
    if (out === undefined) throw damaged();
    return out.toString('utf8');
  }
  return (name) => {
    if (!Object.hasOwn(spans, name)) return undefined;
    if (!done.has(name)) {
      const m = { exports: {} };
      const params = ['exports', 'require', 'module', '__filename', '__dirname'];
      require('node:vm').compileFunction(text(name), params, { filename: \`\${__filename} (\${name})\` })(m.exports, require, m, __filename, __dirname);
      done.set(name, m.exports);
    }
    return done.get(name);
  };
})();
`;
  return `${loader}${main}\n${blocks.join('')}`;
}
