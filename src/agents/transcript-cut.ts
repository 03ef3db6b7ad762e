import { isUtf8 } from 'node:buffer';
import { JsonParseError, MAX_LINE_BYTES, whyNotText } from '../canonical';
import { tooLongToRead } from '../canonical/parse';
import { IntegrityError } from '../errors';
import { mayHoldJsonText } from '../util/json-bytes';

/**
 * What cutting any agent's JSONL transcript right after one call's answer shares (Claude Code's transcript after a
 * tool result, Codex's rollout after a call's output): the lines, read one JSON object each up to the cut; after
 * it, only a second answer of the same call matters; and every call of the conversation so far answered, none the
 * journal records later. Refusals name the file, the line and the reason; the conversation is then not forked.
 */

export type Entry = Record<string, unknown>;

/** Refuses the cut: an IntegrityError naming the file and (when there is one) the line. */
export type Refuse = (why: string, line?: number) => never;

/** How an agent's transcript names a call and its answer (`tool call` / `result`; `call` / `output`). */
export interface CallWords {
  call: string;
  answer: string;
}

/** One line as a JSON object (undefined: anything else). */
export function parseEntry(text: string): Entry | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Entry) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A transcript's lines ('\n'-separated: the text after the last newline is one more, empty when the file ends with
 * one), read where they lie in its bytes, each decoded when asked for: the whole transcript as one string, split into
 * lines, with every entry parsed and kept, took about seven times the file's size (2.09 GB for 304 MB).
 */
export interface TranscriptLines {
  readonly length: number;
  /** Line `i`'s text (refused, naming the line, when it is longer than the longest string Node.js holds). */
  line(i: number): string;
  /** Line `i`'s bytes, as they are in the file. */
  bytes(i: number): Buffer;
}

/** A transcript's lines (it must be UTF-8), and the refusal naming `file`. */
export function transcriptLines(bytes: Buffer, file: string): { raw: TranscriptLines; refuse: Refuse } {
  const refuse: Refuse = (why, line) => {
    throw new IntegrityError(`${file}${line === undefined ? '' : `:${line}`}: ${why}; the conversation is not forked`);
  };
  if (!isUtf8(bytes)) refuse(whyNotText(new JsonParseError('invalid UTF-8', 1)));
  // Where each line starts; line i ends one byte before line i + 1 starts (at the newline), the last at the end.
  const starts: number[] = [0];
  for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, nl + 1)) starts.push(nl + 1);
  const end = (i: number): number => (i + 1 < starts.length ? starts[i + 1]! - 1 : bytes.length);
  const lineBytes = (i: number): Buffer => bytes.subarray(starts[i]!, end(i));
  return {
    raw: {
      length: starts.length,
      bytes: lineBytes,
      line: (i) => {
        const b = lineBytes(i);
        if (b.length > MAX_LINE_BYTES) refuse(tooLongToRead(b.length), i + 1);
        return b.toString('utf8');
      },
    },
    refuse,
  };
}

/**
 * The index of the line that holds the answer of `callId` (the cut), or -1. Every line up to it is a JSON object
 * (`notObject` says what the agent writes instead; an empty line only at the very end), handed to `visit`, which
 * checks it and says whether it is the cut. After the cut only a second answer of the same call matters (`again`):
 * a torn last line is fine.
 */
export function scanToCut(
  raw: TranscriptLines,
  refuse: Refuse,
  o: {
    callId: string;
    words: CallWords;
    notObject: string;
    visit(entry: Entry, i: number): boolean;
    again(entry: Entry): boolean;
  },
): number {
  let cut = -1;
  for (let i = 0; i < raw.length; i++) {
    if (cut >= 0) {
      // A line can name the call in another spelling only through an escape (`\u0063`): such lines are read too.
      if (!mayHoldJsonText(raw.bytes(i), o.callId)) continue;
      const later = parseEntry(raw.line(i));
      if (later !== undefined && o.again(later))
        refuse(
          `the ${o.words.answer} of ${o.words.call} ${o.callId} appears twice (lines ${cut + 1} and ${i + 1})`,
          i + 1,
        );
      continue;
    }
    const line = raw.line(i);
    if (line === '') {
      if (i === raw.length - 1) break;
      refuse('an empty line', i + 1);
    }
    const entry = parseEntry(line);
    if (entry === undefined) return refuse(o.notObject, i + 1);
    if (o.visit(entry, i)) cut = i;
  }
  return cut;
}

/**
 * A conversation cut between the answers of parallel calls cannot be continued: refused when a call before the cut
 * has no answer there (`open`, the first such), or when the copy holds the answer of a call the journal records
 * after the cut's step (their hooks ran in another order).
 */
export function requireAnswers(
  refuse: Refuse,
  words: CallWords,
  callId: string,
  open: { id: string; line: number } | undefined,
  answered: ReadonlySet<string>,
  laterIds: Iterable<string>,
): void {
  if (open !== undefined)
    refuse(
      `${words.call} ${open.id} (line ${open.line}) has no ${words.answer} before the cut: it ran in parallel with ` +
        `${callId}, and a conversation cut between their ${words.answer}s cannot be continued`,
      open.line,
    );
  for (const id of laterIds)
    if (answered.has(id))
      refuse(
        `the conversation before the cut already holds the ${words.answer} of ${id}, which the journal records after ` +
          `${callId} (parallel ${words.call}s whose hooks ran in another order); fork at the later step instead`,
      );
}
