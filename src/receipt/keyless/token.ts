import { InputError, IntegrityError } from '../../errors';

/** The audience a Sigstore identity token is minted for (Fulcio accepts only this one). */
export const SIGSTORE_AUDIENCE = 'sigstore';

/** Where the OIDC identity token for keyless signing comes from. */
export interface IdTokenSource {
  /** Named in messages: `SIGSTORE_ID_TOKEN` or `ACTIONS_ID_TOKEN_REQUEST_URL`. */
  name: string;
  getToken(): Promise<string>;
}

/**
 * The identity token's source, chosen before anything is built: `SIGSTORE_ID_TOKEN`
 * wins (as cosign and sigstore-js take it); otherwise GitHub Actions' token
 * request (`ACTIONS_ID_TOKEN_REQUEST_URL` + `ACTIONS_ID_TOKEN_REQUEST_TOKEN`,
 * present when the job has `id-token: write`). Neither is a usage error naming both.
 */
export function idTokenSource(env: NodeJS.ProcessEnv, fetchImpl: typeof fetch = fetch): IdTokenSource {
  const direct = env['SIGSTORE_ID_TOKEN'];
  if (direct !== undefined && direct !== '')
    return { name: 'SIGSTORE_ID_TOKEN', getToken: () => Promise.resolve(direct) };
  const url = env['ACTIONS_ID_TOKEN_REQUEST_URL'];
  const bearer = env['ACTIONS_ID_TOKEN_REQUEST_TOKEN'];
  if (url !== undefined && url !== '' && bearer !== undefined && bearer !== '') {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new InputError(`ACTIONS_ID_TOKEN_REQUEST_URL is not a URL: ${JSON.stringify(url)}`);
    }
    return { name: 'ACTIONS_ID_TOKEN_REQUEST_URL', getToken: () => requestActionsToken(target, bearer, fetchImpl) };
  }
  throw new InputError(
    'keyless signing needs an OIDC identity token: set SIGSTORE_ID_TOKEN, or run in GitHub Actions with ' +
      '`permissions: id-token: write` (ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN)',
  );
}

/** GitHub Actions' OIDC token for the `sigstore` audience. */
async function requestActionsToken(url: URL, bearer: string, fetchImpl: typeof fetch): Promise<string> {
  const target = new URL(url);
  target.searchParams.set('audience', SIGSTORE_AUDIENCE);
  let res: Response;
  try {
    res = await fetchImpl(target, {
      headers: { Accept: 'application/json', Authorization: `Bearer ${bearer}` },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new IntegrityError(`cannot get an OIDC token from ACTIONS_ID_TOKEN_REQUEST_URL: ${(e as Error).message}`);
  }
  if (!res.ok) throw new IntegrityError(`the OIDC token request failed: HTTP ${res.status}`);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new IntegrityError('the OIDC token response is not JSON');
  }
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['value'] : undefined;
  if (typeof value !== 'string' || value === '') throw new IntegrityError('the OIDC token response has no "value"');
  return value;
}
