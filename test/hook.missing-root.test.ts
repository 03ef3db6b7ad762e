/**
 * `stepchain hook <agent> --root DIR` records into DIR only when it is an existing directory: a hook never makes a
 * project (and its parents) at a mistyped or stale path in an agent's settings. It fails as every hook fails: one
 * line naming the path, exit 1, never 2 (an agent reads 2 as "block": Claude Code's Stop hook would keep the session
 * from ending). Inside an existing root it still makes `.sdd/` itself. Each agent's hook runs as the built bin.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { AGENT_HOOKS } from '../src/agents/hooks';
import { cli, expectNoStack } from './helpers/cli';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-hook-missing-root-');

/** A payload each agent's hook records (a session's start; OpenCode's plugin names the directory, not a cwd). */
function payload(agent: string, cwd: string): string {
  return JSON.stringify(
    agent === 'opencode'
      ? { hook_event_name: 'session.idle', session_id: 'ses_1', directory: cwd }
      : { hook_event_name: 'SessionStart', session_id: 's1', cwd, source: 'startup' },
  );
}

test('every agent covered: the hooks are the ones of the registry', () => {
  expect(AGENT_HOOKS.map((h) => h.name)).toEqual(['claude', 'codex', 'gemini', 'copilot', 'opencode']);
});

describe.each(AGENT_HOOKS.map((h) => h.name))('hook %s', (agent) => {
  test('with a --root that does not exist: one line naming it, exit 1, and no directory made on its way', () => {
    const work = path.join(tmp, `work-${agent}`);
    mkdirSync(work);
    const parent = path.join(tmp, `gone-${agent}`);
    const root = path.join(parent, 'a', 'b');
    const r = cli(['hook', agent, '--root', root], { cwd: work, input: payload(agent, work) });
    expect(r.code).toBe(1);
    expectNoStack(r);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^stepchain: hook ${agent}: .*root "${root}" is not an existing directory`));
    for (const d of [root, path.dirname(root), parent]) expect(existsSync(d)).toBe(false);
    // Nor anything where the payload said the session ran.
    expect(existsSync(path.join(work, '.sdd'))).toBe(false);
  });

  test('with an existing --root: it records there, making .sdd/ in it', () => {
    const root = path.join(tmp, `root-${agent}`);
    mkdirSync(root);
    const r = cli(['hook', agent, '--root', root], { cwd: tmp, input: payload(agent, root) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(path.join(root, '.sdd'))).toBe(true);
  });
});
