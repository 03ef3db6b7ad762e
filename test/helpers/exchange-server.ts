import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The base of the agents' scripted model servers (helpers/claude.ts, responses-server.ts, gemini-server.ts,
 * chat-server.ts): an HTTP server on 127.0.0.1 that reads each request whole and keeps every exchange's exact
 * bytes, the request's and what the server answered, for the tests to compare with what stepchain recorded.
 */

/** One exchange as the server saw it: the request's method, URL, headers and body, and the body it answered. */
export interface Exchange {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  request: Buffer;
  response: Buffer;
}

export interface ExchangeServer {
  port: number;
  /** Every exchange, in the order the requests arrived. */
  raw: Exchange[];
  close(): Promise<void>;
}

/** The request body as JSON (`{}` for an empty one), or undefined when it is not JSON. */
export function jsonBody<T>(x: Exchange): T | undefined {
  try {
    return JSON.parse(x.request.toString('utf8') || '{}') as T;
  } catch {
    return undefined;
  }
}

/** Starts the server; `answer` gets each exchange once its request is read, and what it writes is kept. */
export async function startExchangeServer(
  answer: (x: Exchange, res: http.ServerResponse) => void,
): Promise<ExchangeServer> {
  const raw: Exchange[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const x: Exchange = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        request: Buffer.concat(chunks),
        response: Buffer.alloc(0),
      };
      raw.push(x);
      const write = res.write.bind(res) as (c: string | Buffer) => boolean;
      res.write = ((c: string | Buffer) => {
        x.response = Buffer.concat([x.response, Buffer.from(c)]);
        return write(c);
      }) as typeof res.write;
      const end = res.end.bind(res) as (c?: string | Buffer) => http.ServerResponse;
      res.end = ((c?: string | Buffer) => {
        if (typeof c === 'string' || Buffer.isBuffer(c)) x.response = Buffer.concat([x.response, Buffer.from(c)]);
        return end(c);
      }) as typeof res.end;
      answer(x, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    raw,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
