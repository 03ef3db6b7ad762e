import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { withoutSecret } from './secret';
import { notOriginForm } from './target';

// The recording proxy's (./server.ts) refusals: the requests it serves no further than an error answer.

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: OutgoingHttpHeaders = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ type: 'error', error: { type: 'stepchain_proxy_error', message } });
  res
    .writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
}

/**
 * A request to leave HTTP/1.1 (an `Upgrade` header: a WebSocket handshake, h2c) is answered 426 at once, with the
 * connection closed: never forwarded (not even as the plain request it would become once the hop-by-hop `Upgrade`
 * is dropped), never recorded, never matched against a replay. The proxy records exchanges as a request's bytes and
 * a response's bytes; a WebSocket's frames are neither. 426 is the answer Codex 0.171.0 takes as "no WebSocket
 * here" and goes on over HTTPS at once; any other answer it retries with backoff for about 7 s (docs/record.md).
 * Counted (`refusedUpgrades`): it reached here carrying the run's secret, so it is the agent's.
 */
export function refuseUpgrade(
  counts: { refusedUpgrades: number },
  refusedConnections: WeakSet<Socket>,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  counts.refusedUpgrades++;
  // The parser reads on past an upgrade it does not take as one (no `Connection: upgrade`, an empty `Upgrade`):
  // whatever the connection carries after it is not served (handle), the connection closes with this answer.
  refusedConnections.add(req.socket);
  const to = JSON.stringify(req.headers.upgrade ?? '');
  sendError(res, 426, `stepchain proxy: carries HTTP/1.1 only; the upgrade to ${to} is refused`, {
    connection: 'close',
  });
}

/**
 * A `CONNECT` (a tunnel to anywhere) is answered 405 on its socket, which is then closed: the proxy is no tunnel,
 * and a socket left to Node's default would be dropped without an answer. Not counted with the agent's refused
 * upgrades: its target is a host and port, which cannot carry the run's secret, so nothing says it is the agent's
 * (an agent is given a base URL, never the proxy as a forward proxy), and a process of anyone's must not change
 * what record reports of the agent.
 */
export function refuseConnect(socket: Duplex, onWarning: ((line: string) => void) | undefined): void {
  const body = 'stepchain proxy: CONNECT is refused (the proxy is no tunnel)\n';
  socket.on('error', () => undefined); // the client may be gone already: nothing to tell it
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  onWarning?.('refused CONNECT: the proxy is no tunnel');
}

/**
 * Why a request is refused before anything else (undefined: it is not), and otherwise its target without the run's
 * secret. A web page's, 403: the agent was given `http://127.0.0.1:<port>/<secret>`, its Host names that (or
 * `localhost:<port>`), and no agent's HTTP client sends an Origin; a browser always does on a cross-origin POST,
 * and a DNS-rebinding page sends its own host name. A target that is no path, 400 (./target.ts). A path that does
 * not begin with the secret, 403: not the agent's (./secret.ts), whatever process on the machine sent it.
 */
export function refusal(
  req: IncomingMessage,
  port: number,
  secret: string,
): { status: number; why: string } | { target: string } {
  if (req.headers.origin !== undefined)
    return { status: 403, why: `a request with an Origin (${req.headers.origin}) is a web page's` };
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
    return {
      status: 403,
      why: `the Host ${JSON.stringify(req.headers.host ?? '')} is not the proxy's (127.0.0.1:${port})`,
    };
  const raw = req.url ?? '/';
  const why = notOriginForm(raw);
  if (why !== undefined) return { status: 400, why };
  const target = withoutSecret(raw, secret);
  if (target === undefined)
    return {
      status: 403,
      why: "its path does not begin with this run's secret (only the agent was given it: another process's request)",
    };
  return { target };
}
