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

/**
 * Any other name naming a credential, however its words are joined (`x-api-key`, `apiKey`, `x-authtoken`,
 * `accessToken`, `client_secret`, `X-Amz-Signature`, `cookie2`): one of these words anywhere in it, in any case.
 * Matching words between separators missed the names that run them together (`accessToken`, `privatekey` were
 * recorded). A name dropped that held no secret (`x-author`) costs the record a header; one kept that held one
 * puts it in every copy of the journal.
 */
const CREDENTIAL_WORD = /token|secret|passw|passphrase|pwd|credential|auth|cookie|signature|bearer|jwt/i;

/** `key` (or `keys`) ending a word: `apiKey`, `userkey`, `x-api-key-id`, but not `keyboard`. */
const KEY_WORD = /[kK][eE][yY][sS]?(?![a-z])/;

function namesCredential(name: string): boolean {
  return CREDENTIAL_WORD.test(name) || KEY_WORD.test(name);
}

/** The query parameters holding credentials (and, in any case, any parameter whose name says key, token, secret...). */
export const DROPPED_QUERY_PARAMS: readonly string[] = ['key', 'api_key', 'api-key', 'access_token'];

/** A query parameter that may hold a credential: a name of the list or one naming a credential, in any case. */
function isCredentialParam(name: string): boolean {
  return DROPPED_QUERY_PARAMS.includes(name.toLowerCase()) || namesCredential(name) || /^sig$/i.test(name);
}

export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return DROPPED_HEADERS.includes(n) || namesCredential(n);
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
