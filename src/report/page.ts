import { createHash, randomBytes } from 'node:crypto';
import type { ReportData } from './client/data';
import { shownText } from './client/display';
import { PAGE_SCRIPT } from './client/page-script.generated';

/**
 * The report page: static skeleton, inline style, inline script and the embedded
 * data. The script is src/report/client bundled by scripts/build-page.mjs (the same
 * src/canonical and src/journal code the CLI runs, @noble/hashes and
 * @noble/ed25519), carried as a string constant. A Content-Security-Policy allows
 * only that exact script and style (by hash) and no fetch of any kind: the page
 * works, and can only work, offline.
 */
export function pageScript(): string {
  return PAGE_SCRIPT;
}

const STYLE = `
:root { color-scheme: light dark; --bg:#fff; --fg:#1b1f24; --dim:#656d76; --line:#d0d7de; --soft:#f6f8fa; --rowline:#f0f2f4; --ok:#1a7f37; --okbg:#dafbe1; --bad:#cf222e; --badbg:#ffebe9; --warn:#9a6700; --warnbg:#fff8c5; --sel:#ddf4ff; --accent:#0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg:#0d1117; --fg:#e6edf3; --dim:#9198a1; --line:#3d444d; --soft:#151b23; --rowline:#21262d; --ok:#3fb950; --okbg:#0f2a1a; --bad:#ff7b72; --badbg:#3a1518; --warn:#d29922; --warnbg:#2e2410; --sel:#1b3350; --accent:#4493f8; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main, section { padding: 0 20px; }
header, main, section, #list, #detail, dl.meta dd, .status { min-width: 0; }
h1 { font-size: 18px; margin: 14px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 4px 0 8px; }
h3 { font-size: 13px; margin: 14px 0 4px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; }
.status { border: 2px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 8px 0 12px; background: var(--soft); overflow-wrap: anywhere; }
.status .title { font-size: 22px; font-weight: 700; }
.status.ok { border-color: var(--ok); background: var(--okbg); color: var(--ok); }
.status.warn { border-color: var(--warn); background: var(--warnbg); color: var(--warn); }
.status.bad { border-color: var(--bad); background: var(--badbg); color: var(--bad); }
.status.bad .title { font-size: 26px; }
.status .detail { color: var(--fg); margin-top: 4px; }
.progress { height: 6px; background: var(--line); border-radius: 3px; margin-top: 8px; overflow: hidden; }
.progress div { height: 100%; width: 0; background: var(--accent); }
.status.ok .progress, .status.bad .progress, .status.warn .progress { display: none; }
ul.faults { color: var(--bad); margin: 8px 0 0; padding-left: 20px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 14px; margin: 0 0 8px; }
dl.meta dt { color: var(--dim); }
dl.meta dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.hash, code, .code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; overflow-wrap: anywhere; word-break: break-all; }
.dim { color: var(--dim); font-weight: normal; }
.warn { color: var(--warn); font-weight: 600; }
.badtext { color: var(--bad); font-weight: 600; }
.oktext { color: var(--ok); font-weight: 600; }
.okline { color: var(--ok); margin: 4px 0; }
.note { color: var(--dim); }
.toolbar { display: flex; gap: 12px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
#search { flex: 0 1 360px; min-width: 0; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; font: inherit; color: inherit; background: var(--bg); }
main { display: grid; grid-template-columns: minmax(260px, 38%) minmax(0, 1fr); gap: 16px; }
#list { position: relative; height: 70vh; overflow-y: auto; border: 1px solid var(--line); border-radius: 6px; outline: none; }
#list-spacer { position: relative; }
.item { position: absolute; left: 0; right: 0; height: 26px; line-height: 26px; padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; border-bottom: 1px solid var(--rowline); }
.item:hover { background: var(--soft); }
.item.selected { background: var(--sel); box-shadow: inset 3px 0 0 var(--accent); }
.item .n { display: inline-block; min-width: 56px; color: var(--dim); font-family: ui-monospace, monospace; font-size: 12px; }
.item .mark { color: var(--ok); margin-right: 6px; }
.item.faulty { background: var(--badbg); }
.item.faulty .mark { color: var(--bad); font-weight: 700; }
#detail { height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
pre.code { margin: 0; padding: 8px; background: var(--soft); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 40vh; overflow: auto; }
ul.refs { padding-left: 18px; margin: 0; }
table.blobs { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.blobs td, table.blobs th { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
table.blobs th:first-child { width: 45%; }
ul.tree, ul.tree ul { list-style: none; padding-left: 18px; border-left: 1px solid var(--line); margin: 2px 0; }
ul.tree .node { display: inline-block; padding: 1px 6px; border: 1px solid var(--line); border-radius: 4px; margin: 2px 0; overflow-wrap: anywhere; }
ul.tree .node.badnode { border-color: var(--bad); color: var(--bad); }
ul.tree .node.current { border-color: var(--accent); background: var(--sel); font-weight: 600; }
button { font: inherit; color: inherit; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 3px 10px; cursor: pointer; }
button.linklike { background: none; border: 0; padding: 0; color: inherit; text-decoration: underline; cursor: pointer; font: inherit; }
button.more { margin-top: 4px; }
.paste { margin: 8px 0; display: grid; gap: 6px; max-width: 760px; }
.paste label { display: grid; gap: 4px; color: var(--dim); }
.paste textarea { width: 100%; font-family: ui-monospace, monospace; font-size: 12px; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px; }
.paste button { justify-self: start; }
.paste-result { overflow-wrap: anywhere; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 4px; padding: 0 4px; font-size: 12px; }
footer { padding: 16px 20px; color: var(--dim); font-size: 12px; }
@media (max-width: 800px) { main { grid-template-columns: minmax(0, 1fr); } #list, #detail { height: 50vh; } header, main, section { padding: 0 10px; } .status .title { font-size: 18px; } .status.bad .title { font-size: 20px; } }
`;

/** Text for the page's markup: HTML's five characters as references, controls, bidi and invisible characters shown. */
const escapeHtml = (s: string): string =>
  shownText(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** JSON safe inside a `<script>` element: no `<`, `>`, `&` or line separators left as is. */
function scriptJson(data: ReportData): string {
  return JSON.stringify(data).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const cspHash = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** The whole page for the embedded data. */
export function buildPage(data: ReportData): string {
  const script = PAGE_SCRIPT;
  const csp = [
    "default-src 'none'",
    `script-src ${cspHash(script)}`,
    `style-src ${cspHash(STYLE)}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en" data-verify-state="pending">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="stepchain report">
<title>${escapeHtml(data.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(data.title)}</h1>
<div id="status" class="status" role="status" aria-live="polite">
<div id="status-title" class="title">Not verified yet</div>
<div id="status-detail" class="detail">This page re-verifies the chain with its own script. <noscript>JavaScript is off, so NOTHING on this page has been verified.</noscript></div>
<ul id="faults" class="faults"></ul>
<div class="progress"><div id="progress-bar"></div></div>
</div>
<dl id="meta" class="meta"></dl>
</header>
<section id="receipt" hidden><h2>Receipt</h2></section>
<section>
<div class="toolbar">
<input id="search" type="search" placeholder="Search steps (press /)" aria-label="Search steps" autocomplete="off">
<label><input id="only-faults" type="checkbox"> only faults</label>
<span id="count" class="dim"></span>
<span class="dim"><kbd>←</kbd><kbd>→</kbd> or <kbd>j</kbd><kbd>k</kbd> step · <kbd>Home</kbd><kbd>End</kbd> first/last · <kbd>/</kbd> search · <kbd>Esc</kbd> clear</span>
</div>
</section>
<main>
<div id="list" role="listbox" aria-label="Steps" tabindex="0"><div id="list-spacer"></div></div>
<div id="detail" aria-live="polite"></div>
</main>
<section id="blobs" hidden><h2>Blobs</h2></section>
<section id="forks" hidden><h2>Fork tree</h2></section>
<footer>Generated by ${escapeHtml(data.generator)} at ${escapeHtml(data.generated_at)}. Self-contained: no network access; the journal's exact bytes are embedded and every hash is recomputed here.</footer>
<script type="application/json" id="stepchain-data">${scriptJson(data)}</script>
<script>${script}</script>
</body>
</html>
`;
}

/** A stand-in for the journal's base64 in the page's data, found once and cut out by `pageAround`. */
export function journalMark(): string {
  return `stepchain-journal-b64-${randomBytes(16).toString('hex')}`;
}

/**
 * The page around its journal: `before`, the journal's base64, then `after` is buildPage's page, for data whose
 * `journal_b64` is `mark` (journalMark). A writer puts the journal's base64 between them a piece at a time, so the
 * journal's base64 (a third larger than it) is never one string, nor the page that holds it. Base64 needs no escape
 * in JSON or in a `<script>` element, so the pieces are the page buildPage makes of the whole string.
 */
export function pageAround(data: ReportData, mark: string): { before: string; after: string } {
  const page = buildPage(data);
  const at = page.indexOf(mark);
  // The mark is random and ASCII: found anywhere else it would have come from the data itself.
  if (data.journal_b64 !== mark || at < 0 || page.indexOf(mark, at + 1) >= 0)
    throw new Error('report page: the journal mark is not found once');
  return { before: page.slice(0, at), after: page.slice(at + mark.length) };
}

/**
 * A page for a file the check did not read (not what the commit holds, a link, too large): its title and what the
 * check said of it, and nothing of the file itself. Static (no script, no style of the file's), under the same CSP.
 */
export function buildUnreadPage(title: string, heading: string, lines: readonly string[]): string {
  const csp = "default-src 'none'; img-src 'none'; base-uri 'none'; form-action 'none'";
  return `<!DOCTYPE html>
<html lang="en" data-verify-state="not-read">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="generator" content="stepchain report">
<title>${escapeHtml(title)}</title>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p><strong>${escapeHtml(heading)}</strong></p>
<ul>
${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('\n')}
</ul>
</body>
</html>
`;
}
