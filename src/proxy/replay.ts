import { createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { canonical, isJsonObject, parse, type JsonValue } from '../canonical';
import { IntegrityError } from '../errors';
import { Cas, type JournalEntry } from '../journal';
import { sha256Hex } from '../util/hash';
import { openRegularFile, readRegularFile } from '../util/nofollow';
import { recordablePath } from './credentials';
import { EXCHANGE_FORMAT, MAX_MESSAGE_BYTES } from './exchange';
import { arrayAt, stringAt, valueAt } from './json';
import { firstDifference, normalise, type NormaliseContext, type NormaliseRule } from './normalise';

/**
 * One recorded exchange, read back from its step: the request, the response and how it was sent. The request and
 * the response are read from the CAS when first used (and checked again then), not all held from the start: a
 * replay of steps 0..N held every recorded body at once, which a recording of large ones (or a hostile one) made
 * gigabytes.
 */
export interface RecordedExchange {
  readonly seq: number;
  readonly protocol: string;
  readonly method: string;
  readonly path: string;
  readonly request: Buffer;
  readonly status: number;
  /** The response headers as recorded (credentials were never recorded). */
  readonly responseHeaders: [string, string][];
  readonly response: Buffer;
}

/** A small blob (an exchange record) read whole: one larger than any body the proxy records is refused unread. */
function blob(cas: Cas, digest: string, where: string): Buffer {
  const bytes = readRegularFile(cas.pathOf(digest), { maxBytes: MAX_MESSAGE_BYTES });
  if (bytes === undefined) throw new IntegrityError(`${where}: blob ${digest} is not in the CAS (${cas.dir})`);
  if (sha256Hex(bytes) !== digest) throw new IntegrityError(`${where}: blob ${digest} does not match its digest`);
  return bytes;
}

/**
 * A recorded body checked before anything runs without being held: in the CAS, no larger than the proxy ever
 * records (MAX_MESSAGE_BYTES), its bytes hashed as they are read. Returns how to read it when it is used.
 */
function checkedBlob(cas: Cas, digest: string, where: string): () => Buffer {
  const opened = openRegularFile(cas.pathOf(digest));
  if (opened === undefined) throw new IntegrityError(`${where}: blob ${digest} is not in the CAS (${cas.dir})`);
  try {
    if (opened.size > MAX_MESSAGE_BYTES)
      throw new IntegrityError(
        `${where}: blob ${digest} holds ${opened.size.toLocaleString('en-US')} bytes, more than any body the proxy records (${MAX_MESSAGE_BYTES / 1024 / 1024} MiB)`,
      );
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(opened.size, 1 << 20) || 1);
    for (let n = -1; n !== 0;) {
      n = readSync(opened.fd, chunk, 0, chunk.length, null);
      hash.update(chunk.subarray(0, n));
    }
    if (hash.digest('hex') !== digest) throw new IntegrityError(`${where}: blob ${digest} does not match its digest`);
  } finally {
    closeSync(opened.fd);
  }
  const size = opened.size;
  // Read again at each use, never kept: a kept body outlived its answer (the exchanges stay listed until the replay
  // ends), so a replay of steps 0..N held every body again by its end. The use reads at most the size checked: a file
  // put in the body's place since (a larger one, a link, a FIFO) is refused before it is read, never answered.
  return () => {
    let bytes: Buffer | undefined;
    try {
      bytes = readRegularFile(cas.pathOf(digest), { maxBytes: size });
    } catch (e) {
      throw new IntegrityError(`${where}: blob ${digest} is no longer the body checked: ${(e as Error).message}`);
    }
    if (bytes === undefined) throw new IntegrityError(`${where}: blob ${digest} is not in the CAS (${cas.dir})`);
    if (sha256Hex(bytes) !== digest) throw new IntegrityError(`${where}: blob ${digest} does not match its digest`);
    return bytes;
  };
}

/**
 * The exchange a verified step records, from its blobs: the input blob is the
 * request, the exchange record (the last blob, `format` EXCHANGE_FORMAT) names
 * the response blob and the status and headers to answer with. A step that is
 * not a recorded exchange, or whose blobs are missing or altered, is an
 * IntegrityError naming the journal line.
 */
export function recordedExchange(entry: JournalEntry, cas: Cas, file: string): RecordedExchange {
  const row = entry.row;
  const where = `${file}:${entry.line}: step ${row.seq}`;
  const refs = row.blob_refs;
  const metaDigest = refs.at(-1);
  if (refs.length < 2 || metaDigest === undefined)
    throw new IntegrityError(`${where}: not a recorded exchange (no exchange record among its blobs)`);
  let meta: JsonValue;
  try {
    meta = parse(blob(cas, metaDigest, where).toString('utf8'));
  } catch (e) {
    if (e instanceof IntegrityError) throw e;
    throw new IntegrityError(`${where}: its exchange record is not JSON`);
  }
  if (!isJsonObject(meta) || stringAt(meta, 'format') !== EXCHANGE_FORMAT)
    throw new IntegrityError(`${where}: not a recorded exchange (its last blob is not a ${EXCHANGE_FORMAT} record)`);
  const responseDigest = stringAt(meta, 'response_sha256');
  if (responseDigest === undefined || !refs.includes(responseDigest))
    throw new IntegrityError(`${where}: its exchange record names a response the step does not list`);
  if (stringAt(meta, 'request_sha256') !== row.input_hash)
    throw new IntegrityError(`${where}: its exchange record names another request than the step's input`);
  const status = valueAt(meta, 'status');
  const headers: [string, string][] = [];
  for (const h of arrayAt(meta, 'response_headers'))
    if (Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string')
      headers.push([h[0], h[1]]);
  const request = checkedBlob(cas, row.input_hash, where);
  const response = checkedBlob(cas, responseDigest, where);
  return {
    seq: row.seq,
    protocol: stringAt(meta, 'protocol') ?? '',
    method: stringAt(meta, 'method') ?? 'POST',
    path: stringAt(meta, 'path') ?? '',
    get request() {
      return request();
    },
    status: typeof status === 'number' ? status : 200,
    responseHeaders: headers,
    get response() {
      return response();
    },
  };
}

/**
 * The response of an exchange a replayed request matched, read from the CAS and checked again now; or, when that
 * fails (the body changed, grew, became a link since the replay checked it), the stop that says why: the replay
 * answers nothing else and does not count the exchange as answered.
 */
export function recordedResponse(x: RecordedExchange): Buffer | Divergence {
  try {
    return x.response;
  } catch (e) {
    return { exchange: x.seq, field: 'response', recorded: '', replayed: '', unanswerable: (e as Error).message };
  }
}

/** Why a replayed request is not its recording: the exchange and the first differing field. */
export interface Divergence {
  exchange: number;
  field: string;
  recorded: string;
  replayed: string;
  /** Set when the request matched but its recorded response failed its check when read to answer it: why. */
  unanswerable?: string;
}

function excerpt(v: JsonValue | undefined, from = 0): string {
  if (v === undefined) return '(absent)';
  const whole = typeof v === 'string' ? v : canonical(v);
  const text = from > 0 ? `...${whole.slice(from)}` : whole;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** How many leading characters two texts share. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function at(v: JsonValue, path: string): JsonValue | undefined {
  if (path === '') return v;
  let cur: JsonValue | undefined = v;
  const re = /\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null && cur !== undefined) {
    if (m[2] !== undefined) cur = Array.isArray(cur) ? cur[Number(m[2])] : undefined;
    else cur = valueAt(cur, m[1] ?? (JSON.parse(m[3]!) as string));
  }
  return cur;
}

/**
 * Request bodies read as text for the comparison. Fatal: a lenient decoder reads every invalid byte as U+FFFD, so
 * two requests that differ in such bytes (and a request holding U+FFFD itself) compared equal, and the replay
 * answered one with the other's recorded response. A byte order mark is kept (a byte the upstream receives too).
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Answers replayed requests from a recording. Requests are matched in order
 * against the recorded exchanges not yet answered (the lowest first, so
 * concurrent requests that arrive in another order still find theirs); one
 * that matches none diverges at the lowest open exchange.
 */
export class Replayer {
  private readonly open: RecordedExchange[];
  private readonly normalised = new Map<number, JsonValue>();

  constructor(
    recorded: RecordedExchange[],
    private readonly rules: readonly NormaliseRule[],
    private readonly ctx: NormaliseContext,
  ) {
    this.open = [...recorded].sort((a, b) => a.seq - b.seq);
  }

  get remaining(): number {
    return this.open.length;
  }

  private bodyOf(bytes: Buffer): JsonValue {
    try {
      return normalise(parse(UTF8.decode(bytes)), this.rules, this.ctx);
    } catch {
      return bytes.toString('latin1'); // not JSON (or not UTF-8): compared as bytes
    }
  }

  private recordedBody(x: RecordedExchange): JsonValue {
    let v = this.normalised.get(x.seq);
    if (v === undefined) {
      v = this.bodyOf(x.request);
      this.normalised.set(x.seq, v);
    }
    return v;
  }

  /** The recorded exchange this request replays (taken off the list), or where it diverges. */
  take(method: string, target: string, request: Buffer): RecordedExchange | Divergence {
    const body = this.bodyOf(request);
    const path = recordablePath(target);
    for (let i = 0; i < this.open.length; i++) {
      const x = this.open[i]!;
      if (x.method !== method || x.path !== path) continue;
      if (firstDifference(this.recordedBody(x), body) === undefined) {
        this.normalised.delete(x.seq); // answered: its request is not compared again
        return this.open.splice(i, 1)[0]!;
      }
    }
    const first = this.open[0]!;
    if (first.method !== method || first.path !== path)
      return {
        exchange: first.seq,
        field: 'path',
        recorded: `${first.method} ${first.path}`,
        replayed: `${method} ${path}`,
      };
    const rec = this.recordedBody(first);
    const field = firstDifference(rec, body) ?? '';
    const [a, b] = [at(rec, field), at(body, field)];
    // Two texts (a system prompt, a tool's output): shown from a little before where they part, not from their start.
    const from = typeof a === 'string' && typeof b === 'string' ? Math.max(0, commonPrefix(a, b) - 40) : 0;
    return {
      exchange: first.seq,
      field: field === '' ? 'body' : field,
      recorded: excerpt(a, from),
      replayed: excerpt(b, from),
    };
  }
}
