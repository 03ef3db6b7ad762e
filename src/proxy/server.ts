import type { Agent as HttpAgent, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { answerFromRecording, passHeaders } from './passing';
import { protocolOf, type Protocol, type ProtocolName } from './protocols';
import type { Recorder, RecorderSlot } from './recorder';
import { recordedResponse, type Divergence, type Replayer } from './replay';
import { MAX_MESSAGE_BYTES, type Exchange } from './exchange';
import { refusal, refuseConnect, refuseUpgrade, sendError } from './refusals';
import { hideSecret, newProxySecret, withoutSecret } from './secret';
import { shownTarget, upstreamRequest } from './target';
// Loaded when a proxy starts, not with the CLI (a bundle evaluates its static imports at its start): net, tls under.
const http = (): typeof import('node:http') => process.getBuiltinModule('node:http');
const https = (): typeof import('node:https') => process.getBuiltinModule('node:https');

/**
 * The recording proxy: an HTTP server on 127.0.0.1 (an ephemeral port) that
 * forwards each request to its upstream and passes the response back chunk by
 * chunk as it arrives (nothing is reassembled on the way: the recorder reads
 * a copy once the response is over). Model calls (a POST to a path one of the
 * protocols knows) are recorded; anything else is forwarded unrecorded.
 *
 * It serves only the agent: every path must begin with the run's secret, which only the agent is given (in its base
 * URL, `base`) and which is stripped before anything reads the path (./secret.ts, ./refusals.ts).
 *
 * In replay, model calls are answered from the recording while it lasts (each
 * must match its recorded request, see Replayer); the first one that does not
 * stops the proxy: it is answered with an error, never forwarded, and so is
 * every request after it.
 */
export interface ProxyOptions {
  /** The upstream base URL for a protocol (undefined: a request that is no model call). */
  upstreamFor(protocol: ProtocolName | undefined): URL;
  recorder: Recorder;
  replayer?: Replayer;
  onDivergence?(d: Divergence): void;
  /** Told when the first request goes live after a replay (every recorded exchange was answered). */
  onLive?(): void;
  onWarning?(line: string): void;
}

export interface ProxyCounts {
  forwarded: number;
  replayed: number;
  unrecorded: number;
  /** The agent's requests to leave HTTP/1.1 (an `Upgrade`: a WebSocket, h2c), each refused. */
  refusedUpgrades: number;
}

export interface RunningProxy {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /**
   * `http://127.0.0.1:<port>/<secret>`: the one base the proxy serves (every other path is refused, ./secret.ts), for
   * the agent's base URLs. Given to the agent alone; shown nowhere.
   */
  base: string;
  port: number;
  /** Exchanges forwarded upstream and answered from the recording; the agent's requests to switch protocol, refused. */
  counts: ProxyCounts;
  divergence: Divergence | undefined;
  /** Waits for the exchanges under way, then stops listening. */
  close(): Promise<void>;
}

const MAX_SHOWN = `${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`;

/** The request body, or undefined when it is (or says it is) over MAX_MESSAGE_BYTES: nothing more of it is kept. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_MESSAGE_BYTES) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const take = (c: Buffer): void => {
      size += c.length;
      if (size <= MAX_MESSAGE_BYTES) return void chunks.push(c);
      req.off('data', take);
      chunks.length = 0;
      resolve(undefined);
    };
    req.on('data', take);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** How long after a request went out its earlier steps are appended, when its response has not begun by then. */
const APPEND_AFTER_MS = 25;

/** The longest a response is held for the appends of the steps its request settled (a hung append must not hang the agent). */
const APPEND_HOLD_MS = 30_000;

/** How long exchanges still under way when the agent exits may take to finish. */
const CLOSE_GRACE_MS = 5_000;

/** What came back from the upstream (undefined: it could not be reached, or the agent left first). */
type Forwarded =
  | { status: number; headers: IncomingHttpHeaders; response: Buffer; complete: boolean; firstByteMs: number | null }
  | undefined;

/** A running proxy's parts the request handlers share. */
interface ProxyContext {
  options: ProxyOptions;
  state: RunningProxy;
  keepAlive: { http: HttpAgent; https: HttpAgent }; // https.Agent is one
  /** Whether a replay has gone live (its recorded exchanges all answered). */
  wentLive: boolean;
  /** Connections whose upgrade was refused: closing, nothing more of them is served. */
  refusedConnections: WeakSet<Socket>;
  /** The run's secret, the first segment of every path the proxy serves (./secret.ts). */
  secret: string;
}

/** Sends a request upstream and streams the response back to the agent as it comes, keeping a copy. */
function forward(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  protocol: Protocol | undefined,
  arrived: number,
  gate?: () => Promise<void>,
): Promise<Forwarded> {
  const { options, keepAlive } = ctx;
  return new Promise((resolve) => {
    const base = options.upstreamFor(protocol?.name);
    const tls = base.protocol === 'https:';
    const up = (tls ? https() : http()).request({
      ...upstreamRequest(base, req.url ?? '/'),
      method: req.method,
      headers: { ...passHeaders(req.headers), 'content-length': body.length },
      agent: tls ? keepAlive.https : keepAlive.http,
    });
    up.on('socket', (s: Socket) => s.setNoDelay(true));
    res.on('close', () => {
      if (!res.writableFinished) up.destroy(); // the agent went away (or was cut off): stop the upstream too
    });
    let settled = false;
    const done = (v: Parameters<typeof resolve>[0]): void => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    };
    up.on('error', (e) => {
      if (res.headersSent) return; // mid-response: the response's own end says how it ended
      if (res.destroyed)
        options.onWarning?.(
          `${req.method} ${shownTarget(req.url ?? '/')}: the agent left before the upstream answered`,
        );
      else {
        sendError(res, 502, `stepchain proxy: the upstream ${base.origin} could not be reached: ${e.message}`);
        options.onWarning?.(`upstream ${base.origin}: ${e.message}`);
      }
      done(undefined);
    });
    up.on('response', (ur) => {
      const chunks: Buffer[] = [];
      let firstByteMs: number | null = null;
      // No byte of the response reaches the agent before what it waits for (the gate) is done; until then the
      // bytes are held, in order, and the end with them.
      let held: Buffer[] | undefined = gate === undefined ? undefined : [];
      let ended: boolean | undefined;
      // The head goes out with the first body chunk (one write, one wake-up of the agent), which the upstream
      // has usually sent with its own head; a head whose body is not here by the next turn is sent alone.
      try {
        res.writeHead(ur.statusCode ?? 502, passHeaders(ur.headers));
      } catch (e) {
        // A head Node's parser read but Node will not send (a status under 100; thrown here, it ended record): the
        // exchange ends as one whose upstream could not be reached (the 'error' above), nothing of it passed on.
        return void up.destroy(new Error(`its answer's head cannot be passed on (${(e as Error).message})`));
      }
      setImmediate(() => {
        if (!res.headersSent && !res.destroyed) res.flushHeaders();
      });
      let size = 0;
      ur.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_MESSAGE_BYTES) {
          // An answer without end: cut, both ways, and recorded as what came before the bound (incomplete).
          options.onWarning?.(`${req.method} ${shownTarget(req.url ?? '/')}: the response passed ${MAX_SHOWN}: cut`);
          ur.destroy();
          finish(false);
          return;
        }
        chunks.push(c);
        if (held !== undefined) held.push(c);
        else res.write(c); // as it came: no reassembly on the way
        if (firstByteMs === null) firstByteMs = performance.now() - arrived;
      });
      const close = (complete: boolean): void => {
        if (complete) res.end();
        else res.destroy();
      };
      void gate?.().then(() => {
        for (const c of held ?? []) res.write(c);
        held = undefined;
        if (ended !== undefined) close(ended);
      });
      const finish = (complete: boolean): void => {
        if (ended !== undefined) return;
        ended = complete;
        if (held === undefined || !complete) close(complete);
        done({
          status: ur.statusCode ?? 0,
          headers: ur.headers,
          response: Buffer.concat(chunks),
          complete,
          firstByteMs,
        });
      };
      ur.on('end', () => finish(true));
      ur.on('aborted', () => finish(false));
      ur.on('error', () => finish(false));
      res.on('close', () => {
        if (!res.writableFinished) finish(false);
      });
    });
    up.end(body);
  });
}

/** A request of the agent's, as read. */
interface AgentRequest {
  method: string;
  target: string;
  protocol: Protocol | undefined;
  body: Buffer;
  slot: RecorderSlot | undefined;
}

/** While a replay holds recorded exchanges, the agent's request is answered from them or stops the replay. */
async function answerReplay(
  ctx: ProxyContext,
  replayer: NonNullable<ProxyOptions['replayer']>,
  res: ServerResponse,
  { method, target, protocol, body, slot }: AgentRequest,
): Promise<void> {
  const { options, state } = ctx;
  if (protocol === undefined) {
    // Nothing goes upstream while the recording answers: a call the recording does not hold is refused.
    state.counts.unrecorded++;
    sendError(
      res,
      404,
      `stepchain proxy: ${method} ${target} is not a model call and is not sent upstream during a replay`,
    );
    return;
  }
  const got = replayer.take(method, target, body);
  options.recorder.drop(slot!);
  if ('field' in got) {
    state.divergence = got;
    sendError(res, 409, `stepchain proxy: the replay diverged at exchange ${got.exchange} (${got.field})`);
    options.onDivergence?.(got);
    return;
  }
  // A body changed since the replay checked it stops the agent as a divergence does: never answered with other bytes.
  const response = recordedResponse(got);
  if (!Buffer.isBuffer(response)) {
    state.divergence = response;
    sendError(
      res,
      502,
      `stepchain proxy: the replay stopped at exchange ${got.seq}: its recorded response is unreadable`,
    );
    options.onDivergence?.(response);
    return;
  }
  state.counts.replayed++;
  await answerFromRecording(res, got, response);
}

/** A model call that goes upstream: forwarded as it came, and recorded once its response has ended. */
async function forwardAndRecord(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  {
    method,
    target,
    protocol,
    body,
    slot,
    arrived,
  }: AgentRequest & { protocol: Protocol; slot: RecorderSlot; arrived: number },
): Promise<void> {
  const { options, state } = ctx;
  state.counts.forwarded++;
  // Nothing stands between the request's arrival and its way upstream: the request is read as JSON (the tool
  // results it carries, which settle earlier steps) once it is written, while the upstream thinks; the appends
  // those steps wait for (a journal write and a snapshot: git processes competing for the machine) start
  // APPEND_AFTER_MS after the request went out, or when the response begins, whichever comes first. The
  // response's bytes reach the agent only once those appends are done (at most APPEND_HOLD_MS later): the agent
  // can run no tool of this response before the snapshots of the earlier steps are taken, so each holds the
  // files of its own step, whatever the machine's load (a model thinks far longer than an append takes, so the
  // wait is usually over before the first byte comes).
  let appended: Promise<void> | undefined;
  const flush = (): Promise<void> => {
    if (appended === undefined) {
      clearTimeout(timer);
      appended = options.recorder.flush();
    }
    return appended;
  };
  const timer = setTimeout(() => void flush(), APPEND_AFTER_MS).unref();
  const gate = (): Promise<void> =>
    Promise.race([flush(), new Promise<void>((r) => setTimeout(r, APPEND_HOLD_MS).unref())]);
  const pending = forward(ctx, req, res, body, protocol, arrived, gate);
  setImmediate(() =>
    options.recorder.answeredBy(protocol, { target, requestHeaders: req.headers, request: body }, slot),
  );
  const r = await pending;
  void flush();
  if (r === undefined) {
    options.recorder.drop(slot);
    return;
  }
  const exchange: Exchange = {
    protocol,
    method,
    target,
    requestHeaders: req.headers,
    request: body,
    status: r.status,
    responseHeaders: r.headers,
    response: r.response,
    complete: r.complete,
    firstByteMs: r.firstByteMs,
    endMs: performance.now() - arrived,
    source: 'upstream',
  };
  options.recorder.complete(slot, exchange);
}

/** One request from the agent: refused, answered from the recording, or forwarded (and recorded). */
async function handle(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options, state } = ctx;
  res.socket?.setNoDelay(true);
  const arrived = performance.now();
  const method = req.method ?? 'GET';
  // A path as a warning shows it: without the secret's segment, and the secret nowhere else in it either.
  const shown = (t: string): string => hideSecret(shownTarget(withoutSecret(t, ctx.secret) ?? t), ctx.secret);
  if (ctx.refusedConnections.has(req.socket)) {
    // Pipelined behind a refused upgrade: never forwarded, recorded or matched; its answer never comes (the
    // connection closes once the 426 is out).
    req.resume();
    options.onWarning?.(`refused ${method} ${shown(req.url ?? '/')}: it follows a refused upgrade on its connection`);
    return;
  }
  const admitted = refusal(req, state.port, ctx.secret);
  if ('why' in admitted) {
    // Not the agent (a web page: a cross-origin POST, or a DNS-rebound name; a process not given the secret), or not
    // a path: it must not write the recording, consume a replayed exchange, stop a replay, or go anywhere.
    sendError(res, admitted.status, `stepchain proxy: ${admitted.why}; refused`, { connection: 'close' });
    options.onWarning?.(`refused ${method} ${shown(req.url ?? '/')}: ${admitted.why}`);
    return;
  }
  // The secret is stripped here, before anything reads the path: what goes upstream, what is recorded, what is shown.
  req.url = admitted.target;
  const target = admitted.target;
  if (req.headers.upgrade !== undefined) {
    refuseUpgrade(state.counts, ctx.refusedConnections, req, res);
    return;
  }
  const q = target.indexOf('?');
  const protocol = protocolOf(method, q < 0 ? target : target.slice(0, q));
  if (state.divergence !== undefined) {
    sendError(res, 409, `stepchain proxy: the replay stopped at exchange ${state.divergence.exchange}`);
    return;
  }
  const slot = protocol === undefined ? undefined : options.recorder.reserve();
  let body: Buffer | undefined;
  try {
    body = await readBody(req);
  } catch {
    if (slot !== undefined) options.recorder.drop(slot);
    return;
  }
  if (body === undefined) {
    // Over the bound: answered, and the connection closed behind the answer (the rest is never read).
    if (slot !== undefined) options.recorder.drop(slot);
    sendError(res, 413, `stepchain proxy: the request body is over ${MAX_SHOWN}; refused`, { connection: 'close' });
    options.onWarning?.(`refused ${method} ${shownTarget(target)}: its body is over ${MAX_SHOWN}`);
    res.on('finish', () => req.destroy());
    return;
  }
  const replayer = options.replayer;
  if (replayer !== undefined && replayer.remaining > 0) {
    await answerReplay(ctx, replayer, res, { method, target, protocol, body, slot });
    return;
  }
  if (replayer !== undefined && !ctx.wentLive) {
    ctx.wentLive = true;
    options.onLive?.();
  }
  if (protocol === undefined) {
    state.counts.unrecorded++;
    await forward(ctx, req, res, body, undefined, arrived);
    return;
  }
  await forwardAndRecord(ctx, req, res, { method, target, protocol, body, slot: slot!, arrived });
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const state: RunningProxy = {
    origin: '',
    base: '',
    port: 0,
    counts: { forwarded: 0, replayed: 0, unrecorded: 0, refusedUpgrades: 0 },
    divergence: undefined,
    close: async () => undefined,
  };
  const keepAlive = { http: new (http().Agent)({ keepAlive: true }), https: new (https().Agent)({ keepAlive: true }) };
  const ctx: ProxyContext = {
    options,
    state,
    keepAlive,
    wentLive: false,
    refusedConnections: new WeakSet(),
    secret: newProxySecret(),
  };
  const inFlight = new Set<Promise<void>>();
  const server = http().createServer({ noDelay: true }, (req, res) => {
    const p = handle(ctx, req, res).catch((e: unknown) => {
      options.onWarning?.(`proxy: ${(e as Error).message}`);
      sendError(res, 502, 'stepchain proxy: internal error');
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  });
  // No 'upgrade' listener: Node then hands a request asking to upgrade to the handler above, as any request, where
  // it is refused (refuseUpgrade). A CONNECT never reaches it.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => refuseConnect(socket, options.onWarning));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  state.port = port;
  state.origin = `http://127.0.0.1:${port}`;
  state.base = `${state.origin}/${ctx.secret}`;
  state.close = async () => {
    server.close();
    server.closeIdleConnections();
    // The agent is gone: what it left under way gets a little while to finish, then its connections are cut
    // (each cut exchange is recorded as incomplete), so a hanging upstream never keeps record running.
    const grace = new Promise<void>((r) => setTimeout(r, CLOSE_GRACE_MS).unref());
    await Promise.race([Promise.allSettled([...inFlight]), grace]);
    server.closeAllConnections();
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    keepAlive.http.destroy();
    keepAlive.https.destroy();
  };
  return state;
}
