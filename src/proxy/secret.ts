import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The recording proxy's per-run secret: only the agent is given it, as the first segment of the path of the base URL
 * it is pointed at (`http://127.0.0.1:<port>/<secret>/v1`), and the proxy serves only requests whose path begins with
 * it. Any other process on the machine that finds the ephemeral port must not be able to put exchanges into the
 * journal as the agent's (nor send them upstream with the agent's route): it was not given the secret.
 *
 * The secret is stripped before anything else sees the request's path (the upstream, the journal, a warning): it
 * lives only as long as the run, in the agent's environment or command line, and is shown nowhere.
 */

/** 256 bits of the system's CSPRNG, base64url (A-Z a-z 0-9 - _: a path segment as it is, nothing to escape). */
export function newProxySecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The request target without the secret's segment (`/<secret>/v1/messages` is `/v1/messages`, `/<secret>` and
 * `/<secret>?q` are `/` and `/?q`), or undefined when the target does not begin with it. The bytes are compared in
 * constant time: how far a guess matched must not show in how long its refusal took. The secret's length is no
 * secret (it is always 43 characters).
 */
export function withoutSecret(target: string, secret: string): string | undefined {
  const want = Buffer.from(`/${secret}`, 'utf8');
  const got = Buffer.from(target.slice(0, want.length), 'utf8');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  const rest = target.slice(want.length);
  if (rest === '') return '/';
  if (rest.startsWith('?')) return `/${rest}`;
  return rest.startsWith('/') ? rest : undefined; // `/<secret>x...` is another segment, not the secret's
}

/** A text to show (a warning, an error answer) with the secret, wherever it stands in it, replaced by `<secret>`. */
export function hideSecret(text: string, secret: string): string {
  return text.split(secret).join('<secret>');
}
