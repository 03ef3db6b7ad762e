import { encodeString } from './encode';

/**
 * A JSON scalar's text (a number of any form, NaN, an infinity, true, false, null), or text that starts as a JSON
 * string does (`"`), with blank space of any kind around it (a no-break or ideographic space is blank to the eye too):
 * what a string shown without its quotes would be taken for.
 */
const LOOKS_LIKE_ANOTHER_VALUE =
  /^\s*(?:(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity)\s*$|")/;

/**
 * A string value as the terminal and the report show it: bare (a prompt, a tool's output read as text), but quoted
 * when bare it would read as another value: the string "NaN" beside the number NaN, "42" beside 42, "null" beside
 * null. Python's json writes a non-finite number bare (NaN), so a journal can hold both, and a step whose tool_result
 * is the number NaN must not look like one whose tool_result is the text NaN. A string that itself starts with a
 * quote is quoted too, so the text `"NaN"` (quotes included) is not shown as the string NaN now is. (A string whose
 * text is an object's or array's JSON stays bare, as it always was: tool output is often JSON text, read best so.)
 */
export function bareText(s: string): string {
  return LOOKS_LIKE_ANOTHER_VALUE.test(s) ? encodeString(s) : s;
}
