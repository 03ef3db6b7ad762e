import type { IncomingHttpHeaders } from 'node:http';

/**
 * What never enters a record: the headers that carry credentials (every
 * provider's API-key header, bearer tokens, cookies, a proxy's own
 * authorization) and any other header whose name says it holds a key, a token
 * or a secret; in the request's path, the `key=` query parameter Gemini's API
 * takes. They are still forwarded upstream (the agent's own credentials reach
 * the provider untouched); they are dropped from the exchange's record only.
 */
export const DROPPED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
  'set-cookie',
];

/** Any other header name naming a credential (`x-foo-token`, `openai-api-key`, `x-secret`). */
const CREDENTIAL_NAME = /(^|[-_])(key|token|secret|auth|authorization|password|credential)s?([-_]|$)|api[-_]?key/i;

/** The query parameters holding credentials (and, in any case, any parameter whose name says key, token, secret...). */
export const DROPPED_QUERY_PARAMS: readonly string[] = ['key', 'api_key', 'api-key', 'access_token'];

/** A query parameter that may hold a credential: a name of the list or one naming a credential, in any case. */
function isCredentialParam(name: string): boolean {
  return (
    DROPPED_QUERY_PARAMS.includes(name.toLowerCase()) || CREDENTIAL_NAME.test(name) || /^(sig|signature)$/i.test(name)
  );
}

export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return DROPPED_HEADERS.includes(n) || CREDENTIAL_NAME.test(n);
}

/** The headers as `[name, value]` pairs (lowercase names, in the order given), credentials left out. */
export function recordableHeaders(headers: IncomingHttpHeaders): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isCredentialHeader(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push([name.toLowerCase(), v]);
  }
  return out;
}

/** The request target with credential query parameters removed (`/v1beta/models/m:generateContent?alt=sse`). */
export function recordablePath(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const params = new URLSearchParams(target.slice(q + 1));
  for (const p of [...new Set(params.keys())]) if (isCredentialParam(p)) params.delete(p);
  const rest = params.toString();
  return rest === '' ? target.slice(0, q) : `${target.slice(0, q)}?${rest}`;
}
