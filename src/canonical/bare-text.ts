import { encodeString } from './encode';

/**
 * A JSON scalar's text (a number of any form, NaN, an infinity, true, false, null), blank space around it allowed:
 * what a string shown without its quotes would be taken for.
 */
const SCALAR_TEXT =
  /^[ \t\n\r]*(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity)[ \t\n\r]*$/;

/**
 * A string value as the terminal and the report show it: bare (a prompt, a tool's output read as text), but quoted
 * when bare it would read as another value: the string "NaN" beside the number NaN, "42" beside 42, "null" beside
 * null. Python's json writes a non-finite number bare (NaN), so a journal can hold both, and a step whose tool_result
 * is the number NaN must not look like one whose tool_result is the text NaN.
 */
export function bareText(s: string): string {
  return SCALAR_TEXT.test(s) ? encodeString(s) : s;
}
