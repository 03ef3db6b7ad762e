import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { isEventStream } from './payloads';
import type { RecordedExchange } from './replay';
import { idRecord } from '../util/records';

// The recording proxy's (./server.ts): which headers it passes on, and how a replay answers from a recorded exchange.

/** Headers that belong to one connection, never passed on (RFC 9110 §7.6.1), and the host. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

export function passHeaders(h: IncomingHttpHeaders): OutgoingHttpHeaders {
  // Header names are the peer's (`__proto__` is a valid one): stored as own keys, never as a prototype.
  const out: OutgoingHttpHeaders = idRecord();
  const named = new Set(
    String(h.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase()),
  );
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

/** Splits a recorded response where its events end, to send it as it was streamed. */
function pieces(bytes: Buffer, streamed: boolean): Buffer[] {
  if (!streamed) return [bytes];
  const out: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf('\n\n'); i >= 0; i = bytes.indexOf('\n\n', start)) {
    out.push(bytes.subarray(start, i + 2));
    start = i + 2;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

export async function answerFromRecording(res: ServerResponse, x: RecordedExchange, body: Buffer): Promise<void> {
  const headers: OutgoingHttpHeaders = idRecord();
  for (const [k, v] of x.responseHeaders) {
    if (HOP_BY_HOP.has(k) || k === 'content-length') continue;
    const had = headers[k];
    headers[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [String(had)]), v];
  }
  headers['content-length'] = body.length;
  res.writeHead(x.status, headers);
  const streamed = isEventStream(x.responseHeaders.find(([k]) => k === 'content-type')?.[1]);
  for (const p of pieces(body, streamed)) {
    res.write(p);
    await new Promise((r) => setImmediate(r));
  }
  res.end();
}
