import * as core from '@actions/core';
import { sanitize } from '../util/terminal';

/**
 * Log lines that cannot become workflow commands. The runner reads stdout line
 * by line and acts on a line that starts with `::` (after leading spaces) and on
 * a legacy `##[command]` anywhere in a line; a journal directory name, a receipt
 * member name or a `mutation_kind` value with a newline in it could otherwise
 * forge an annotation, mask a value (`::add-mask::`) or stop command processing
 * (`::stop-commands::`). Every line the Action prints with data in it goes
 * through `safeLine`: first the one terminal sanitiser (src/util/terminal.ts:
 * line breaks, escape sequences, which GitHub's log viewer renders as colours,
 * and bidi controls are shown as `\n`, `\x1b`, `\u202e`), then a leading `::`
 * and any `##[` are escaped. Annotations and `setFailed` go through
 * @actions/core, which escapes only `%`, CR, LF and (in properties) `:` and `,`
 * of their data: an annotation's message and its properties (a journal's path
 * is data) pass through `annotation`, which sanitises each first.
 */
export function safeLine(s: string): string {
  let t = sanitize(s);
  t = t.replace(/##\[/g, '##\\[');
  if (/^\s*::/.test(t)) t = t.replace('::', '\\::');
  return t;
}

/** `core.info` of a data-carrying line, neutralised. */
export function info(line: string): void {
  core.info(safeLine(line));
}

/** A one-line message for annotations and `setFailed` (core escapes; this keeps it one line and bounded). */
export function oneLineMessage(s: string, max = 2000): string {
  const t = safeLine(s);
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * An error or warning annotation whose message and properties carry data: each string is made one safe line
 * (a path with an escape sequence in it reached the log raw through `file=`, which core does not sanitise).
 */
export function annotation(level: 'error' | 'warning', message: string, props: core.AnnotationProperties = {}): void {
  const safe: core.AnnotationProperties = { ...props };
  for (const k of ['title', 'file'] as const) {
    const v = props[k];
    if (v !== undefined) safe[k] = oneLineMessage(v, 1000);
  }
  (level === 'error' ? core.error : core.warning)(oneLineMessage(message), safe);
}
