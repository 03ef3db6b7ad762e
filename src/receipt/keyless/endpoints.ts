import { InputError } from '../../errors';
import { readRegularFile } from '../../util/nofollow';

/** The Sigstore services a keyless signature goes through. */
export interface SigningEndpoints {
  fulcioURL: string;
  /** A transparency log (Rekor v1 API): the entry's integrated time witnesses the signing. */
  rekorURL?: string;
  /** An RFC 3161 timestamp authority. */
  tsaURL?: string;
}

/** The public-good instance: Fulcio with a Rekor log (what a public repository's attestations use). */
export const PUBLIC_GOOD: SigningEndpoints = {
  fulcioURL: 'https://fulcio.sigstore.dev',
  rekorURL: 'https://rekor.sigstore.dev',
};

/** GitHub's instance: its Fulcio with its timestamp authority, no public log (private and internal repositories). */
export const GITHUB_INSTANCE: SigningEndpoints = {
  fulcioURL: 'https://fulcio.githubapp.com',
  tsaURL: 'https://timestamp.githubapp.com',
};

/** URLs given on the command line (or as Action inputs). */
export interface EndpointOverrides {
  fulcioURL?: string;
  rekorURL?: string;
  tsaURL?: string;
}

/**
 * The endpoints to sign with, chosen as actions/attest chooses them: a public
 * repository (the event payload's `repository.visibility`) signs through the
 * public-good instance, any other through GitHub's. A URL given replaces the
 * instance's; when Fulcio and a witness are given, nothing is looked up. With
 * both a Rekor and a TSA URL given, both witness.
 */
export function signingEndpoints(overrides: EndpointOverrides, env: NodeJS.ProcessEnv): SigningEndpoints {
  const { fulcioURL, rekorURL, tsaURL } = overrides;
  if (fulcioURL !== undefined && (rekorURL !== undefined || tsaURL !== undefined)) {
    return { fulcioURL, ...(rekorURL === undefined ? {} : { rekorURL }), ...(tsaURL === undefined ? {} : { tsaURL }) };
  }
  const base = repositoryVisibility(env) === 'public' ? PUBLIC_GOOD : GITHUB_INSTANCE;
  const out: SigningEndpoints = { ...base };
  if (fulcioURL !== undefined) out.fulcioURL = fulcioURL;
  if (rekorURL !== undefined) out.rekorURL = rekorURL;
  if (tsaURL !== undefined) out.tsaURL = tsaURL;
  return out;
}

/** `repository.visibility` of the workflow's event payload (GITHUB_EVENT_PATH), when there is one. */
export function repositoryVisibility(env: NodeJS.ProcessEnv): string | undefined {
  const file = env['GITHUB_EVENT_PATH'];
  if (file === undefined || file === '') return undefined;
  let payload: unknown;
  try {
    // The runner's file, but whatever the variable names: never a FIFO waited on, never more than an event holds
    // (GitHub caps a webhook payload at 25 MB).
    payload = JSON.parse(readRegularFile(file, { follow: true, maxBytes: 64 * 1024 * 1024 })?.toString('utf8') ?? '');
  } catch {
    return undefined;
  }
  const repo =
    typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>)['repository'] : undefined;
  const v = typeof repo === 'object' && repo !== null ? (repo as Record<string, unknown>)['visibility'] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** A service URL from the command line: http(s) only, named in the refusal. */
export function serviceURL(value: string, option: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new InputError(`${option}: not a URL: ${JSON.stringify(value)}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new InputError(`${option}: not an http(s) URL: ${value}`);
  return value.replace(/\/+$/, '');
}
