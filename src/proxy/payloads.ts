import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { parse, type JsonValue } from '../canonical';

/**
 * The JSON documents of a response, read from a copy of its bytes after the
 * response was passed on (the forwarding path never waits for this): the
 * `data:` of each server-sent event, or the one JSON body (a JSON array body,
 * as Gemini's streamGenerateContent sends without `alt=sse`, is its elements).
 * What does not parse is skipped: the record keeps the bytes either way.
 */
export interface ResponsePayloads {
  streamed: boolean;
  payloads: JsonValue[];
}

/** Response bytes as the server meant them: content-encoding undone (a body that does not decode is kept raw). */
export function decodedBody(bytes: Buffer, contentEncoding: string | undefined): Buffer {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return gunzipSync(bytes);
    if (enc === 'br') return brotliDecompressSync(bytes);
    if (enc === 'deflate') return inflateSync(bytes);
  } catch {
    return bytes;
  }
  return bytes;
}

function tryParse(text: string): JsonValue | undefined {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

/** The events of an SSE stream (WHATWG rules: lines end in CRLF, LF or CR; `data:` lines of one event joined by LF). */
export function sseEvents(text: string): { event: string | undefined; data: string }[] {
  const out: { event: string | undefined; data: string }[] = [];
  let data: string[] = [];
  let event: string | undefined;
  const flush = (): void => {
    if (data.length > 0) out.push({ event, data: data.join('\n') });
    data = [];
    event = undefined;
  };
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line === '') {
      flush();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  flush();
  return out;
}

export function isEventStream(contentType: string | undefined): boolean {
  return /^\s*text\/event-stream\b/i.test(contentType ?? '');
}

export function responsePayloads(
  bytes: Buffer,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): ResponsePayloads {
  const text = decodedBody(bytes, contentEncoding).toString('utf8');
  if (isEventStream(contentType)) {
    const payloads: JsonValue[] = [];
    for (const e of sseEvents(text)) {
      if (e.data.trim() === '[DONE]') continue;
      const v = tryParse(e.data);
      if (v !== undefined) payloads.push(v);
    }
    return { streamed: true, payloads };
  }
  const v = tryParse(text);
  if (v === undefined) return { streamed: false, payloads: [] };
  return { streamed: false, payloads: Array.isArray(v) ? v : [v] };
}
