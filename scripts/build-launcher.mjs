// The `stepchain` bin (dist/cli.js) is one file that carries its programs as text and compiles only the one a
// command line runs: V8 scans a string literal far faster than it pre-parses code, so a program that does not run
// costs its bytes' reading, not its compilation. `hook <agent>` (what an agent starts, and waits for, on every tool
// call) runs the hook entry (src/cli/hook-entry.ts, a small bundle) and falls back to the whole CLI for any command
// line the entry does not take (help, an unknown agent, options that do not parse): the same command line, nothing
// read or printed yet.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { CARRIED_READER, packJoint } from './carried.mjs';

/**
 * `import path from 'node:path'` (how src/ imports it, in some forty modules of a small entry) becomes, in a
 * CommonJS bundle, a copy of node:path's exports made for each importing module as the program starts (esbuild's
 * `__toESM`: a getter defined per export, per module), ~1.5 ms of every hook call. In the small entries node:path is
 * one ES module of the bundle instead, read once: its default export and its named ones (node:path's own names,
 * plain functions and values: reading them runs nothing).
 */
const nodePathOnce = {
  name: 'node-path-once',
  setup(b) {
    const names = Object.keys(path).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
    b.onResolve({ filter: /^(node:)?path$/ }, (args) =>
      args.namespace === 'node-path-once'
        ? { path: 'node:path', external: true }
        : { path: 'node:path', namespace: 'node-path-once' },
    );
    b.onLoad({ filter: /.*/, namespace: 'node-path-once' }, () => ({
      contents: `import * as m from 'node:path';\nexport default m.default ?? m;\nexport const { ${names.join(', ')} } = m;\n`,
      loader: 'js',
    }));
  },
};

/** A small entry (src/cli/<name>-entry.ts) as one small CommonJS program (the hook entry exports `runHook`, the verify entry `runVerify`). */
export async function bundleEntry(root, name) {
  const result = await build({
    plugins: [nodePathOnce],
    entryPoints: [path.join(root, 'src', 'cli', `${name}-entry.ts`)],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    // No `keepNames` (the whole CLI keeps them): it sets `.name` on each of the entry's ~700 functions and classes
    // when the module starts, a run-time cost on every hook call, and no output of a small entry holds a function's
    // or a class's name (the errors carry theirs in `name` fields; the tests compare each path with the whole CLI).
    keepNames: false,
    charset: 'ascii',
    legalComments: 'eof',
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}

/**
 * The bin's text: `programs.hook` is the hook entry (a module exporting `runHook(argv)`, true when it took the
 * command line), `programs.verify` the verify entry (`runVerify(argv)`, the same way: `stepchain verify` and
 * `stepchain receipt verify` are whole processes whose start is a noticeable part of them), `programs.main` the
 * whole CLI (a script). Each program is compiled as a CommonJS module of this file (its require, __filename and
 * __dirname), only when it runs.
 *
 * They are the file's last comments, each read back (only its own bytes, found by where they start counted from the
 * file's end) when it runs: Node reads and V8 tokenizes the whole bin on every start, and V8 skips a comment (a block
 * comment a little faster than a line comment) faster than a string literal of the same length (a literal it also
 * copies into the heap; JSON in a comment would cost a JSON.parse when read), which is most of what the bin's size
 * costs a hook call (5-16 ms a MB on a 2-core VM as its spells go, whichever program runs: a comment of 250 KB more
 * cost a claude hook call 2.6-4.2 ms, medians of 31 interleaved calls; the bin's comments alone, 826 KB against 612,
 * cost a start 2.2 and 1.2 ms over an empty file, p25 of 101 interleaved starts). So the build packs all three
 * (`packed`): brotli in base64, in one stream, the last comment, a line comment (launcherSource says why; carried.mjs
 * packJoint: the entries are mostly modules of the whole CLI, and packed together they cost it little more than the
 * whole CLI alone; 826 -> 665 KB; carried.mjs packBytes says why base64), each program read back from the stream's
 * shortest prefix that unpacks to its text. A program pays its unpacking (the whole CLI ~12-17 ms, the hook entry
 * ~3 ms, most of it brotli's) only when it runs without its code
 * cache, whose file holds its text. A program carried as it is (the tests') is a comment of its own, pure ASCII (so the
 * file reads as latin1, a byte a character); a \`*\/\` in one is written with an escape (commentBody) the launcher
 * takes back out.
 *
 * Every program runs with V8's code cache: a program's compiled code (what the first run compiled, lazily compiled
 * functions included) is kept in `<XDG state dir>/stepchain/code-cache/` (the per-user directory of the audit and
 * checkpoint keys, src/util/state-dir.ts: a relative XDG_STATE_HOME ignored), named by the program, its SHA-256,
 * Node's version and the architecture, and later runs compile nothing V8 finds there (the whole CLI: about a
 * fifth of a command's start, measured). A cache is code: one is used only when it is a
 * regular file (never through a link) of this user that no one else can write, in a directory only this user can
 * write (and every directory above it safe from others), holding the SHA-256 of the data after it (V8 checks only a
 * header: damaged code crashes the process); anything else, or a cache V8 rejects, is compiled from the text (and
 * rewritten, whole, when the call exits). The cache file of a packed program (all three are) holds its text before
 * its code (named `<name>+text-...`): a start reads the text there, under the same checks, instead of unpacking it.
 * Between text and code, the paths through the program its runs took (a program that names them, its export
 * `codeCachePath`: the hook entry, `<agent> <event>`; src/cli/code-path.ts): a run of a path not listed writes the
 * cache again at its exit, with the code it read (V8 keeps it) and the functions this path compiled, so that the
 * cache comes to hold every path taken, whichever ran first (at most MAX_PATHS paths).
 * STEPCHAIN_CODE_CACHE=off compiles from the text and writes nothing.
 */
/** How many caches of each program the launcher keeps (pruneCaches). */
const KEEP_CACHES = 3;
/** How many paths through a program a cache is written again for (the hook: five agents' events, ~40). */
const MAX_PATHS = 64;
/** How much less code than it read a cache written again may hold: V8's own variation, not flushed code (run). */
const CODE_SLACK = 1024;

export function launcherSource(programs, { packed = [] } = {}) {
  for (const [name, text] of Object.entries(programs))
    if (/[^\x00-\x7f]/.test(text)) throw new Error(`build-launcher: the ${name} program is not pure ASCII`);
  const sha = (text) => createHash('sha256').update(text, 'latin1').digest('hex').slice(0, 32);
  // Each is carried as the source V8 compiles, its CommonJS wrapper included: a wrapper added at run time makes a
  // second string of the whole text (V8 flattens the concatenation before it compiles), a copy of 1.5 MB of fresh
  // memory for the whole CLI on every start (~360 pages; a page first touched costs ~13 us on this kind of VM).
  // The programs carried as they are: each a block comment of its own (`/*`, the text, `*/` and a newline), last
  // first, before the packed ones'.
  const plainOrder = ['main', 'verify', 'hook'].filter((name) => !packed.includes(name));
  const blocks = plainOrder.map((name) => ({ names: [name], ...commentBody(wrapped(programs[name])) }));
  // The packed programs: one stream (packJoint), the file's last comment, the hook's text first (it runs on every
  // tool call of an agent: its start reads and checks the shortest prefix), then verify's, the whole CLI's last.
  const packedOrder = ['hook', 'verify', 'main'].filter((name) => packed.includes(name));
  const joint =
    packedOrder.length === 0
      ? undefined
      : packJoint(packedOrder.map((name) => Buffer.from(wrapped(programs[name]), 'latin1')));
  // A line comment, not a block one: a bin cut short inside a block comment is a SyntaxError V8 reports with the
  // comment as its source line (the whole stream, ~600 KB on stderr, before the launcher can say a word), while a
  // line comment cut short still parses and the launcher refuses it (the whole CLI checks its close, the entries'
  // offsets from the end move). The body holds no newline (base64), so nothing in it ends the comment early. V8
  // skips it a little slower: 598 KB, 0.48 -> 0.64 ms (p25 of 61 compiles in one process).
  if (joint !== undefined) blocks.unshift({ names: packedOrder, body: joint.body, escape: '', line: true });
  // Each program: where its comment's text starts, counted back from the file's end, how many of its bytes are the
  // program's (the whole text, or a packed program's prefix), whether they are the whole comment, its escape, and
  // for a packed one the length of its text, the packed bytes the prefix holds (-1: the whole stream) and where
  // its text lies in what they unpack to (packJoint); -1 for a text carried as it is; whether its comment is a line
  // comment (the stream's). Its id (its code cache's name) is the SHA-256 prefix of the bytes it reads.
  const spans = {};
  const ids = {};
  let back = 0;
  for (const b of blocks) {
    back += b.body.length + (b.line ? 1 : 3);
    for (const name of b.names) {
      const at = joint !== undefined && b.body === joint.body ? joint.spans[packedOrder.indexOf(name)] : undefined;
      const length = at === undefined ? b.body.length : at.chars;
      spans[name] = [back, length, length === b.body.length, b.escape];
      spans[name].push(...(at === undefined ? [-1, -1, 0] : [at.length, at.bytes, at.from]), b.line === true);
      ids[name] = sha(b.body.slice(0, length));
    }
    back += 2;
  }
  const carriedSpans = ['main', 'verify', 'hook'].map((name) => spans[name]);
  return `#!/usr/bin/env node
'use strict';
// stepchain: the CLI, the hook entry and the verify entry, carried in this file's last comments and compiled only
// when run (scripts/build-launcher.mjs).
/** The bin damaged: one line, exit 1, nothing run. */
function damaged(why = 'the programs it carries are not where it says (bytes were added or cut)') {
  process.stderr.write(\`stepchain: \${__filename}: damaged: \${why}; reinstall stepchain\\n\`);
  process.exit(1);
}
${CARRIED_READER}/**
 * Carried program \`k\` (0: the file's last comment): its bytes as carried (carriedBytes), its escape and the length
 * of the text a packed one unpacks to (-1: carried as it is); textOf gives its text.
 */
function carried(k) {
  const [back, length, closed, escape, textLength, packed, from, line] = ${JSON.stringify(carriedSpans)}[k];
  const bytes = carriedBytes(back + 2, length, closed, line);
  if (bytes === undefined) damaged();
  return { bytes, escape, textLength, packed, from };
}
/** The text of a carried program, from its bytes. */
function textOf({ bytes, escape, textLength, packed, from }) {
  if (textLength >= 0) {
    // Packed: the text is what its bytes unpack to, of the length the build wrote down.
    const text = unpackCarried(bytes, textLength, packed, from);
    if (text === undefined) damaged();
    return text.toString('latin1');
  }
  const text = bytes.toString('latin1');
  return escape === '' ? text : text.replaceAll(\`*\${escape}/\`, '*/');
}
/** Where the code cache of program \`name\` (its SHA-256 prefix \`id\`) is kept (undefined: none). */
function cacheFile(name, id) {
  const env = process.env;
  if (env.STEPCHAIN_CODE_CACHE === 'off' || typeof process.getuid !== 'function') return undefined;
  const path = require('node:path');
  const home = env.HOME || require('node:os').homedir();
  const xdg = env.XDG_STATE_HOME;
  // XDG: a relative path is no state directory (it would name one in whatever project the hook runs in).
  const base = xdg === '~' || xdg?.startsWith('~/') ? path.join(home, xdg.slice(1)) : xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'state');
  if (!path.isAbsolute(base)) return undefined;
  return path.join(base, 'stepchain', 'code-cache', \`\${name}-\${id}-\${process.version}-\${process.arch}.bin\`);
}
/** Whether a file or directory may hold this user's code: this user's, and no one else can write it. */
function own(st) {
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}
/**
 * Whether \`p\` and every directory above it, as written and with links resolved, belongs to this user or root and
 * no one else can replace what it holds: a directory others can write is one only when sticky (/tmp), a link only
 * when this user's or root's. Otherwise another user could put a tree of their choosing (or a link to files of this
 * user's they chose, a repository's checkout) where the cache is looked for.
 */
function safeChain(p) {
  const fs = require('node:fs');
  const path = require('node:path');
  const me = process.getuid();
  const ok = (q) => {
    for (let at = path.dirname(q); ; at = path.dirname(at)) {
      const st = fs.lstatSync(at);
      if (st.uid !== me && st.uid !== 0) return false;
      if (!st.isSymbolicLink() && (st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return false;
      if (at === path.dirname(at)) return true;
    }
  };
  return ok(p) && ok(path.join(fs.realpathSync.native(path.dirname(p)), path.basename(p)));
}
function digest(data) {
  return require('node:crypto').createHash('sha256').update(data).digest();
}
function readCache(file) {
  const fs = require('node:fs');
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    const dir = fs.lstatSync(require('node:path').dirname(file));
    if (!(st.isFile() && own(st) && dir.isDirectory() && own(dir) && safeChain(file))) return undefined;
    // V8 checks a cache's header, not its code: a damaged one (a flipped bit, a crash's leftover) crashes the
    // process, every call after it. The data is used only when it is what was written: its SHA-256 follows it.
    const bytes = fs.readFileSync(fd);
    const data = bytes.subarray(0, Math.max(0, bytes.length - 32));
    return bytes.length > 32 && digest(data).equals(bytes.subarray(data.length)) ? data : undefined;
  } finally {
    fs.closeSync(fd);
  }
}
function writeCache(file, data) {
  const fs = require('node:fs');
  const dir = require('node:path').dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || !own(st) || !safeChain(file)) return;
  const tmp = \`\${file}.\${process.pid}.tmp\`;
  try {
    fs.writeFileSync(tmp, Buffer.concat([data, digest(data)]), { flag: 'wx', mode: 0o600 });
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  pruneCaches(dir, require('node:path').basename(file));
}
/**
 * A cache is named by its program's bytes, so every build of stepchain (each upgrade) writes new ones beside the
 * last's, ~2.5 MB a build that nothing would read again. When a program's cache is written (a start that found none:
 * the first run of a build), the program's caches beyond the newest ${KEEP_CACHES} written are removed (a few stepchain
 * installs used in turn keep theirs), and leftovers of a write killed midway (\`.<pid>.tmp\`) an hour old.
 * Only regular files named as this launcher names them are removed.
 */
function pruneCaches(dir, written) {
  const fs = require('node:fs');
  const path = require('node:path');
  // A program's caches by its name, packed (\`hook+text-\`) or as earlier builds carried it (\`hook-\`): one program.
  const programOf = (name) => name.slice(0, name.search(/[+-]/));
  const program = programOf(written);
  const ours = /^[a-z]+(?:\\+text)?-[0-9a-f]{32}-v[0-9.]+-[a-z0-9_]+\\.bin(?:\\.[0-9]+\\.tmp)?$/;
  const caches = [];
  for (const name of fs.readdirSync(dir)) {
    if (!ours.test(name) || programOf(name) !== program) continue;
    let st;
    try {
      st = fs.lstatSync(path.join(dir, name));
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    if (!name.endsWith('.tmp')) caches.push([st.mtimeMs, name]);
    else if (Date.now() - st.mtimeMs > 3600e3) fs.rmSync(path.join(dir, name), { force: true });
  }
  caches.sort((a, b) => b[0] - a[0]);
  for (const [, name] of caches.slice(${KEEP_CACHES})) if (name !== written) fs.rmSync(path.join(dir, name), { force: true });
}
/**
 * Runs carried program \`program\` as a CommonJS module of this file, with its code cache; its exports. The cache is
 * named by \`id\` (the SHA-256 prefix of the bytes the build carried), and V8 takes a cache for any text of the
 * length it was made from: so it is read or written only when the bytes read are those (a bin edited in place would
 * otherwise run the code compiled from what it held before). A packed program's cache file begins with its text
 * (the length the build wrote down), the code after it: a start then reads its text there, under the same checks and
 * SHA-256 as its code, instead of unpacking it (a tenth of the whole CLI's start, measured).
 */
function run(name, id, program) {
  const vm = require('node:vm');
  const lead = Math.max(0, program.textLength);
  let file, cachedData, text;
  let paths = [];
  // A packed program is not edited by hand: bytes of it that are not the ones the build carried are damage, even of
  // the same length and unpacking to a text of its length (brotli has no checksum: that text ran, a SyntaxError's
  // stack or other code). The id is their SHA-256 (read for the cache anyway); a program carried as it is runs as
  // edited, without its cache.
  const intact = digest(program.bytes).toString('hex', 0, 16) === id;
  if (!intact && lead > 0) damaged('a program it carries is not the one it was built with (bytes were changed)');
  try {
    file = intact ? cacheFile(lead > 0 ? \`\${name}+text\` : name, id) : undefined;
    const parts = cacheParts(file === undefined ? undefined : readCache(file), lead);
    if (parts !== undefined) ({ text, paths, code: cachedData } = parts);
  } catch {
    cachedData = text = undefined; // none yet, or not one to use
  }
  text ??= textOf(program);
  const script = new vm.Script(text, { filename: __filename, cachedData });
  const m = { exports: {} };
  if (file !== undefined)
    process.once('exit', () => {
      try {
        const fresh = cachedData === undefined || script.cachedDataRejected;
        const taken = pathTaken(m.exports);
        if (!fresh && (taken === undefined || paths.includes(taken) || paths.length >= ${MAX_PATHS})) return;
        const code = script.createCachedData();
        // V8 flushes the bytecode of functions that have not run for a few full GCs, those read from the cache too:
        // a run that made them would write a cache without the code of the paths listed before it, which (listed)
        // never write it again. So a cache with less code than was read is not written (this path is left for a
        // later run); less by up to ${CODE_SLACK} bytes is not flushed code: the same code written again varies by
        // ~100 bytes either way (measured over every agent's events).
        if (!fresh && code.length + ${CODE_SLACK} < cachedData.length) return;
        const listed = [...(fresh ? [] : paths), ...(taken === undefined ? [] : [taken])].join('\\n');
        // The code starts 8-byte aligned in the file (and so in the buffer a start reads it into): V8 copies code
        // that is not pointer-aligned before it reads it (AlignedCachedData), ~100 fresh pages of a hook call's cache.
        // The pad is empty lines at the list's end, which a start passes over.
        const pad = '\\n'.repeat((8 - ((lead + listed.length + 2) % 8)) % 8);
        const head = Buffer.from(\`\${lead > 0 ? text : ''}\\0\${listed}\${pad}\\0\`, 'latin1');
        writeCache(file, Buffer.concat([head, code]));
      } catch {
        /* a cache is never needed */
      }
    });
  script.runInThisContext()(m.exports, require, m, __filename, __dirname);
  return m.exports;
}
/**
 * A cache's data (readCache) as written: the text (\`lead\` bytes, a packed program's), a NUL, the paths its runs
 * took (a line each), a NUL, V8's code. Undefined for anything else (no cache, or one of another layout).
 */
function cacheParts(data, lead) {
  if (data === undefined || data.length < lead + 3 || data[lead] !== 0) return undefined;
  const end = data.indexOf(0, lead + 1);
  if (end < 0 || end - lead > ${MAX_PATHS * 128}) return undefined;
  const listed = data.toString('latin1', lead + 1, end);
  const text = lead > 0 ? data.toString('latin1', 0, lead) : undefined;
  // Empty lines are the pad that aligns the code (run's writer), no path.
  return { text, paths: listed.split('\\n').filter((p) => p !== ''), code: data.subarray(end + 1) };
}
/** The path a run took, as its program names it (its export \`codeCachePath\`): a few printable ASCII words. */
function pathTaken(exports) {
  const taken = typeof exports.codeCachePath === 'function' ? exports.codeCachePath() : undefined;
  return typeof taken === 'string' && /^[\\x20-\\x7e]{1,100}$/.test(taken) ? taken : undefined;
}
const argv = process.argv.slice(2);
if (
  !(argv[0] === 'hook' && run('hook', '${ids.hook}', carried(2)).runHook(argv)) &&
  !((argv[0] === 'verify' || argv[0] === 'receipt') && run('verify', '${ids.verify}', carried(1)).runVerify(argv))
)
  run('main', '${ids.main}', carried(0));
// Nothing after this runs: each program checks only its own bytes' bounds, so a newline between two comments
// changed into other code (an a) would run once the program had: a ReferenceError's stack after its output.
return;
${[...blocks]
  .reverse()
  .map((b) => (b.line ? `//${b.body}\n` : `/*${b.body}*/\n`))
  .join('')}`;
}

/** A program's text as the CommonJS module source the launcher compiles: a function of its module's bindings. */
function wrapped(text) {
  return `(function (exports, require, module, __filename, __dirname) {${text}\n})`;
}

/**
 * A program as the body of a block comment: a \`*\/\` in it (in a string or a regular expression) would end the
 * comment, so each is written \`*<escape>/\`, with an escape the text does not hold that way, and the launcher
 * writes it back. `escape` is '' when the text holds none.
 */
function commentBody(text) {
  if (!text.includes('*/')) return { body: text, escape: '' };
  for (let n = 0; ; n++) {
    const escape = `~${n}~`;
    if (!text.includes(`*${escape}/`)) return { body: text.replaceAll('*/', `*${escape}/`), escape };
  }
}
