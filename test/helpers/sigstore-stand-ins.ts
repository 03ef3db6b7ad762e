import { createHash, generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  fulcioHandler,
  initializeCA,
  initializeCTLog,
  initializeTLog,
  initializeTSA,
  rekorHandler,
  tsaHandler,
  type HandlerFn,
} from '@sigstore/mock';

/**
 * Local stand-ins for a Sigstore instance, on one HTTP server on 127.0.0.1:
 * Fulcio (`/api/v2/signingCert`), Rekor (`/api/v1/log/entries`), a TSA
 * (`/api/v1/timestamp`), and a GitHub Actions OIDC token endpoint (`/token`)
 * that mints a JWT with the claims GitHub puts in one, and GitHub's attestations API. Built on @sigstore/mock
 * with two corrections that make it behave like the real services: Rekor
 * stores a DSSE entry in its canonical form, and the TSA stamps whole seconds.
 */
export interface StandIns {
  url: string;
  /** The SAN Fulcio puts in the certificate (as real Fulcio does for a workflow: https://github.com/<job_workflow_ref>). */
  identity: string;
  issuer: string;
  owner: string;
  /** The OIDC token (for SIGSTORE_ID_TOKEN), and the bearer the token endpoint expects. */
  token: string;
  bearer: string;
  /** Trusted roots: everything, a TSA-only one (like GitHub's), one with logs only; each a TrustedRoot JSON object. */
  root(parts: { tlog?: boolean; tsa?: boolean; ctlog?: boolean; organisation?: string }): object;
  /** Requests served, by path. */
  hits: Map<string, number>;
  /** What GitHub's attestations API (`POST /repos/{owner}/{repo}/attestations`) was sent, with the path. */
  attestations: { path: string; auth: string | undefined; body: { bundle?: unknown } }[];
  close(): Promise<void>;
}

const ISSUER = 'https://token.actions.githubusercontent.com';

function ecKeys(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** An ES256 JWT with GitHub Actions' claims, signed by a local key (the stand-in Fulcio reads the claims). */
function mintToken(claims: Record<string, unknown>): string {
  const { privateKey } = ecKeys();
  const head = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'stand-in' }));
  const body = b64url(JSON.stringify(claims));
  const sig = cryptoSign('sha256', Buffer.from(`${head}.${body}`), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${head}.${body}.${b64url(sig)}`;
}

/** Real Rekor stores a `dsse` entry as hashes and the signature, not the proposed envelope (the verifier reads that form). */
function canonicalDsseEntry(body: string): string {
  const proposed = JSON.parse(body) as {
    kind?: string;
    apiVersion?: string;
    spec?: { proposedContent?: { envelope: string; verifiers: string[] } };
  };
  const content = proposed.spec?.proposedContent;
  if (proposed.kind !== 'dsse' || content === undefined) return body;
  const envelope = JSON.parse(content.envelope) as { payload: string; signatures: { sig: string }[] };
  const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
  return JSON.stringify({
    apiVersion: proposed.apiVersion,
    kind: 'dsse',
    spec: {
      envelopeHash: { algorithm: 'sha256', value: sha(content.envelope) },
      payloadHash: { algorithm: 'sha256', value: sha(Buffer.from(envelope.payload, 'base64')) },
      signatures: envelope.signatures.map((s) => ({ signature: s.sig, verifier: content.verifiers[0] })),
    },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startStandIns(repo = 'acme/app'): Promise<StandIns> {
  const owner = repo.split('/')[0]!;
  const workflowRef = `${repo}/.github/workflows/agent.yml@refs/heads/main`;
  const identity = `https://github.com/${workflowRef}`;
  const ctlog = await initializeCTLog(ecKeys());
  const ca = await initializeCA(ecKeys(), ctlog);
  // The TSA's clock is set to the next whole second before each request: the mock stamps milliseconds, and a
  // time whose milliseconds end in zero encodes as `.12Z`, which @sigstore/core refuses (real TSAs stamp seconds).
  const tsaClock = new Date(Math.ceil(Date.now() / 1000) * 1000);
  const tsa = await initializeTSA(ecKeys(), tsaClock);
  const hits = new Map<string, number>();
  const attestations: StandIns['attestations'] = [];
  const bearer = `bearer-${Math.random().toString(36).slice(2)}`;
  const claims = {
    iss: ISSUER,
    aud: 'sigstore',
    sub: `repo:${repo}:ref:refs/heads/main`,
    workflow_san: identity,
    repository: repo,
    repository_owner: owner,
    job_workflow_ref: workflowRef,
    ref: 'refs/heads/main',
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 3600,
  };
  const token = mintToken(claims);

  const fulcio = fulcioHandler(ca, { subjectClaim: 'workflow_san' });
  // The log is made once the server's URL is known (it is part of its entries); until then /api/v1/log is 404.
  const rekor: { fn?: HandlerFn } = {};
  const stamp = tsaHandler(tsa);

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
      const send = (status: number, body: string | ArrayBufferView, type = 'application/json'): void => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      };
      if (req.method === 'GET' && u.pathname === '/token') {
        if (req.headers.authorization !== `Bearer ${bearer}`) return send(401, '{"message":"bad bearer"}');
        if (u.searchParams.get('audience') !== 'sigstore') return send(400, '{"message":"audience"}');
        return send(200, JSON.stringify({ value: token }));
      }
      const body = await readBody(req);
      if (req.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/attestations$/.test(u.pathname)) {
        attestations.push({ path: u.pathname, auth: req.headers.authorization, body: JSON.parse(body) as object });
        return send(201, JSON.stringify({ id: attestations.length }));
      }
      let r: { statusCode: number; response: string | ArrayBufferView; contentType?: string };
      if (u.pathname === fulcio.path) r = await fulcio.fn(body);
      else if (u.pathname === '/api/v1/log/entries' && rekor.fn !== undefined)
        r = await rekor.fn(canonicalDsseEntry(body));
      else if (u.pathname === stamp.path) {
        tsaClock.setTime(Math.ceil(Date.now() / 1000) * 1000);
        r = await stamp.fn(body);
      } else return send(404, '{"message":"not found"}');
      send(r.statusCode, r.response, r.contentType ?? 'application/json');
    })().catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tlog = await initializeTLog(url, ecKeys());
  const tlogKey = tlog.publicKey;
  rekor.fn = rekorHandler(tlog).fn;

  const start = new Date(Date.now() - 3600_000).toISOString();
  const b64 = (b: ArrayBufferView | Buffer): string =>
    Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  const logKey = (raw: Buffer | ArrayBufferView, keyId: Buffer | ArrayBufferView, base: string): object => ({
    baseUrl: base,
    hashAlgorithm: 'SHA2_256',
    publicKey: { rawBytes: b64(raw), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: { start } },
    logId: { keyId: b64(keyId) },
  });
  return {
    url,
    identity,
    issuer: ISSUER,
    owner,
    token,
    bearer,
    hits,
    attestations,
    root({ tlog: withLog = true, tsa: withTsa = true, ctlog: withCt = true, organisation = 'sigstore.mock' }) {
      return {
        mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
        tlogs: withLog ? [logKey(tlogKey, createHash('sha256').update(tlogKey).digest(), url)] : [],
        certificateAuthorities: [
          {
            subject: { organization: organisation, commonName: 'sigstore' },
            uri: url,
            certChain: { certificates: [{ rawBytes: b64(ca.rootCertificate) }] },
            validFor: { start },
          },
        ],
        ctlogs: withCt ? [logKey(ctlog.publicKey, ctlog.logID, url)] : [],
        timestampAuthorities: withTsa
          ? [
              {
                subject: { organization: organisation, commonName: 'sigstore-tsa' },
                uri: url,
                certChain: {
                  certificates: [{ rawBytes: b64(tsa.intCertificate) }, { rawBytes: b64(tsa.rootCertificate) }],
                },
                validFor: { start },
              },
            ]
          : [],
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
