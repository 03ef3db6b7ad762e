import { decodeUtf8, isJsonObject, parse, type JsonValue } from '../canonical';
import {
  checkExchangeLinks,
  describeExchangeLinkFaults,
  type CheckedExchangeLink,
  type ExchangeLinkFault,
} from '../runs/exchange-links';
import { BrokenChainError, type ReplaySource } from './source';
import { preview, sanitize, shortHash, truncate } from './text';

/**
 * For a hook journal recorded under `stepchain record` (docs/record.md "Hook steps and the exchange behind them"):
 * each tool call's step and the model exchange that asked for it, from the `exchange_link` events of the run journal
 * of the same id, every link checked against both journals. A link that does not hold stops the display
 * (`requireExchangeLinks`), as a broken chain does.
 */

const cache = new WeakMap<ReplaySource, { file: string; links: CheckedExchangeLink[]; faults: ExchangeLinkFault[] }>();

function checked(source: ReplaySource): { file: string; links: CheckedExchangeLink[]; faults: ExchangeLinkFault[] } {
  let c = cache.get(source);
  if (c === undefined) {
    c =
      source.kind !== 'journal' || source.projectRoot === undefined
        ? { file: '', links: [], faults: [] }
        : checkExchangeLinks(source.projectRoot, source.agentId, (seq) => source.entries.at(seq)?.row);
    cache.set(source, c);
  }
  return c;
}

/** Throws BrokenChainError (exit 1, nothing shown) when a link of the journal's run journal does not hold. */
export function requireExchangeLinks(source: ReplaySource): void {
  const { file, faults } = checked(source);
  if (faults.length === 0) return;
  const lines = describeExchangeLinkFaults(faults);
  throw new BrokenChainError(
    file,
    lines,
    'exchange links',
    faults.map((f) => ({ file: f.file, line: f.line, kind: f.kind, message: f.message })),
  );
}

/** The conversation a request carried (Messages and Chat Completions `messages`, Responses `input`, Gemini `contents`). */
function conversationOf(body: JsonValue): JsonValue {
  if (!isJsonObject(body)) return null;
  return body.messages ?? body.input ?? body.contents ?? null;
}

/** One message as a line: its role, then each block (text, tool_use name, tool_result id and content). */
function messageSummary(m: JsonValue): { role: string; summary: string } {
  if (!isJsonObject(m)) return { role: '', summary: preview(m) };
  const role = typeof m.role === 'string' ? m.role : typeof m.type === 'string' ? m.type : '';
  const content = m.content ?? m.parts ?? m.output ?? null;
  const blocks = Array.isArray(content) ? content : [content];
  const parts = blocks.map((b) => {
    if (typeof b === 'string') return b;
    if (!isJsonObject(b)) return preview(b);
    if (typeof b.text === 'string') return b.text;
    if (b.type === 'tool_use') return `[tool_use ${preview(b.name ?? null)} ${preview(b.id ?? null)}]`;
    if (b.type === 'tool_result')
      return `[tool_result ${preview(b.tool_use_id ?? null)}: ${preview(b.content ?? null)}]`;
    return preview(b);
  });
  return { role: sanitize(role), summary: sanitize(parts.join(' ')) };
}

const LAST_MESSAGES = 3;

/** What the model saw when it asked for the tool call: the exchange, its request blob and its last messages. */
export interface ExchangeView {
  journal: string;
  seq: number;
  step_hash: string;
  model: JsonValue;
  /** The exact request body the model received (the exchange's input blob): system prompt, tools, conversation. */
  request_blob: string;
  /** How many messages the request carried, and the last few, summarised (null: the request blob is not at hand). */
  messages: number | null;
  last_messages: { role: string; summary: string }[];
}

function exchangeView(source: ReplaySource, l: CheckedExchangeLink): ExchangeView {
  const row = l.exchange.row;
  let conversation: JsonValue = row.prompt as JsonValue;
  // A prompt past the cap points to the input blob, which holds the whole request.
  if (isJsonObject(conversation) && conversation.in_input_blob === true) {
    const bytes = source.blobs.get(row.input_hash);
    try {
      conversation = bytes === undefined ? null : conversationOf(parse(decodeUtf8(bytes)));
    } catch {
      conversation = null;
    }
  }
  const list = Array.isArray(conversation) ? conversation : null;
  return {
    journal: l.exchange_journal,
    seq: l.exchange_seq,
    step_hash: l.exchange_step_hash,
    model: row.model as JsonValue,
    request_blob: row.input_hash,
    messages: list === null ? null : list.length,
    last_messages: list === null ? [] : list.slice(-LAST_MESSAGES).map(messageSummary),
  };
}

/** The links of the hook steps shown (seq < `shown`), in step order. */
function shownLinks(source: ReplaySource, shown: number): CheckedExchangeLink[] {
  return checked(source)
    .links.filter((l) => l.hook_seq < shown)
    .sort((a, b) => a.hook_seq - b.hook_seq || a.line - b.line);
}

/** `replay --json`'s `exchanges`: for each linked step, the exchange that asked for its tool call. */
export function exchangesDocument(
  source: ReplaySource,
  shown: number,
): { exchanges?: { seq: number; tool_use_id: string; run_line: number; exchange: ExchangeView }[] } {
  const links = shownLinks(source, shown);
  if (links.length === 0) return {};
  return {
    exchanges: links.map((l) => ({
      seq: l.hook_seq,
      tool_use_id: l.tool_use_id,
      run_line: l.line,
      exchange: exchangeView(source, l),
    })),
  };
}

/** The exchange(s) behind one step's tool call, as lines (the terminal's `exchange` field), or none. */
export function stepExchangeText(source: ReplaySource, seq: number): string[] {
  const out: string[] = [];
  for (const l of shownLinks(source, seq + 1).filter((x) => x.hook_seq === seq)) {
    const x = exchangeView(source, l);
    out.push(
      `exchange ${x.seq} of ${sanitize(x.journal)} (step ${shortHash(x.step_hash)}, model ${preview(x.model)}, tool call ${sanitize(l.tool_use_id)})`,
      `what the model saw: request blob ${x.request_blob}${x.messages === null ? '' : `, ${x.messages} messages`}, the last:`,
    );
    for (const m of x.last_messages) out.push(`  ${m.role.padEnd(9)} ${truncate(m.summary, 100)}`);
  }
  return out;
}

/** The exchange of one step, as lines under a heading (`show`), or none. */
export function stepExchangeLines(source: ReplaySource, seq: number): string[] {
  const text = stepExchangeText(source, seq);
  return text.length === 0
    ? []
    : ['', 'asked for by the model exchange (link verified):', ...text.map((t) => `  ${t}`)];
}

/** Below the table: each linked step's exchange, one line each. */
export function exchangeNotes(source: ReplaySource, shown: number): string[] {
  const links = shownLinks(source, shown);
  if (links.length === 0) return [];
  const out = ['', `model exchanges behind the tool calls (${sanitize(checked(source).file)}; links verified):`];
  for (const l of links) {
    const x = exchangeView(source, l);
    const last = x.last_messages.at(-1);
    out.push(
      `  step ${l.hook_seq}: exchange ${x.seq} of ${sanitize(x.journal)}, ${preview(x.model)}, request ${shortHash(x.request_blob)}` +
        (x.messages === null ? '' : `, ${x.messages} messages`) +
        (last === undefined ? '' : `; last: ${truncate(`${last.role} ${last.summary}`, 60)}`),
    );
  }
  return out;
}
