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
  /** Why the body was not read (it decodes past READ_CAP_BYTES): no payloads, the record keeps its bytes. */
  unread?: string;
}

/**
 * The most bytes of a response body (content-encoding undone) that are read for its payloads. The reading runs on
 * the proxy's thread, between the exchanges it passes: a 100 KB gzip body decoding to 100 MiB of events held it for
 * about 30 s (measured), and one of a few MB would take gigabytes. A model's answer is far smaller.
 */
export const READ_CAP_BYTES = 64 * 1024 * 1024;

const TOO_LARGE = `decodes to more than ${READ_CAP_BYTES / 1024 / 1024} MiB`;

/**
 * Response bytes as the server meant them: content-encoding undone (a body that does not decode is kept raw), or
 * undefined when they would pass READ_CAP_BYTES (the decoder stops there: a decompression bomb is never inflated).
 */
export function decodedBody(bytes: Buffer, contentEncoding: string | undefined): Buffer | undefined {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  const limit = { maxOutputLength: READ_CAP_BYTES };
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return gunzipSync(bytes, limit);
    if (enc === 'br') return brotliDecompressSync(bytes, limit);
    if (enc === 'deflate') return inflateSync(bytes, limit);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    return bytes;
  }
  return bytes.length > READ_CAP_BYTES ? undefined : bytes;
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
  const body = decodedBody(bytes, contentEncoding);
  if (body === undefined) return { streamed: isEventStream(contentType), payloads: [], unread: TOO_LARGE };
  const text = body.toString('utf8');
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
