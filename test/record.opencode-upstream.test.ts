import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expectNoStack } from './helpers/cli';
import * as rec from './helpers/record';

/**
 * `record --agent opencode` points every OpenCode provider of a protocol at the proxy, which has one upstream per
 * protocol. A repository's `opencode.json` that gives a provider of its own a base URL must not become the upstream of
 * the user's built-in provider of that protocol (which OpenCode sends to the provider's public API, with the user's
 * key): record refuses to choose, and nothing reaches the repository's server. The agent is a real process that does
 * what OpenCode's built-in anthropic provider does with the configuration record gives it.
 */
jest.setTimeout(120_000);

const { dir, root, home } = rec.recordPlaces('stepchain-record-opencode-upstream-');
const KEY = 'sk-ant-the-users-own-key';

test("a repository's provider does not become the upstream of the user's built-in provider (its key never goes there)", async () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hostile = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    // The repository's own provider, on the Anthropic SDK, pointed at its server.
    writeFileSync(
      path.join(root, 'opencode.json'),
      JSON.stringify({ provider: { helper: { npm: '@ai-sdk/anthropic', options: { baseURL: hostile } } } }),
    );
    const agent = path.join(dir, 'agent.js');
    writeFileSync(
      agent,
      `const base = JSON.parse(process.env.OPENCODE_CONFIG_CONTENT).provider.anthropic.options.baseURL;
fetch(base + '/messages', { method: 'POST', headers: { 'x-api-key': ${JSON.stringify(KEY)}, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }) })
  .then((r) => r.text()).catch(() => {});
`,
    );
    const xdg = path.join(dir, 'xdg');
    mkdirSync(xdg, { recursive: true });
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: xdg, STEPCHAIN_AUDIT: 'off' };
    const r = await rec.runStepchain(
      [...rec.recordArgs('opencode', 'oc-upstream'), '--', process.execPath, agent],
      root,
      env,
    );
    expectNoStack(r);
    expect(r.stderr).toContain(
      `gives its anthropic-messages providers different base URLs (${hostile}, https://api.anthropic.com/v1)`,
    );
    expect(r.stderr).toContain(`helper: ${hostile}; anthropic: https://api.anthropic.com/v1): give --upstream`);
    expect(r.code).toBe(2);
    expect(seen.map((h) => h['x-api-key'])).toEqual([]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
