import type { RequestOptions } from 'node:http';

/**
 * Where a request goes upstream. The agent's request target is a path (origin-form, RFC 9112 §3.2.1), sent to the
 * upstream as it came, byte for byte, on a connection to the upstream's own host and port. It is never resolved as
 * a URL reference against the upstream: `//other.host/...`, `/\other.host/...` (a WHATWG parser reads `\` as `/`)
 * or `//user@[::1]:8080/...` would each name another host, and the agent's credentials would go there with it.
 */

/** Why a request target cannot be forwarded (undefined: it is a path, and goes upstream as it is). */
export function notOriginForm(target: string): string | undefined {
  if (target.startsWith('/')) return undefined;
  // The absolute-form (`http://host/...`) is a forward proxy's, the asterisk-form (`*`) a server-wide OPTIONS: the
  // agent was given a base URL, and sends paths on it.
  return 'the request target is not a path (the proxy is no forward proxy)';
}

/** The options of the upstream request: the upstream's scheme, host and port, the agent's target as the path. */
export function upstreamRequest(base: URL, target: string): RequestOptions {
  return {
    protocol: base.protocol,
    // A bracketed IPv6 literal is the URL's spelling; the socket takes the address.
    hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: base.port === '' ? undefined : Number(base.port),
    path: target, // TLS then names the upstream's host (SNI, the certificate's check), nothing of the request's
  };
}

/** A target as a warning shows it: its path without the query (where credentials travel), or nothing of it. */
export function shownTarget(target: string): string {
  return notOriginForm(target) === undefined ? target.split('?')[0]! : '(not a path)';
}
