import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { planHookFile } from '../src/agents/hook-file';
import { writeOwnHookFile } from '../src/agents/hook-file-io';
import { COPILOT_HOOK_FILE } from '../src/agents/copilot/integration';
import { GEMINI_HOOK_FILE } from '../src/agents/gemini/settings';
import { CLAUDE_HOOK_FILE } from '../src/agents/claude/settings';
import { freshDir, tempDir } from './helpers/tmp';

/** The one hook-file merge, on the layouts and settings the agents' specs differ by. */
const dir = tempDir('stepchain-hook-file-');

test('a setting that turns every hook off is warned about, a dotted one (Gemini) as a top-level one (Claude)', () => {
  const gemini = path.join(freshDir(dir), 'settings.json');
  writeFileSync(gemini, '{"hooksConfig": {"enabled": false}}\n');
  expect(planHookFile(gemini, GEMINI_HOOK_FILE).warnings).toEqual([
    `${gemini} sets "hooksConfig.enabled": false: Gemini CLI runs none of its hooks, so nothing is recorded`,
  ]);
  writeFileSync(gemini, '{"hooksConfig": {"enabled": true}, "disableAllHooks": true}\n');
  expect(planHookFile(gemini, GEMINI_HOOK_FILE).warnings).toEqual([]);
  expect(planHookFile(gemini, GEMINI_HOOK_FILE, { remove: true }).warnings).toEqual([]);
  const claude = path.join(freshDir(dir), 'settings.json');
  writeFileSync(claude, '{"disableAllHooks": true}\n');
  expect(planHookFile(claude, CLAUDE_HOOK_FILE).warnings).toEqual([
    `${claude} sets "disableAllHooks": true: Claude Code runs none of its hooks, so nothing is recorded`,
  ]);
});

test('the flat layout: entries under each event, the header kept, a file of ours alone deleted by --remove', () => {
  const file = path.join(freshDir(dir), 'stepchain.json');
  const install = planHookFile(file, COPILOT_HOOK_FILE);
  writeOwnHookFile(install);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { version: number; hooks: Record<string, unknown[]> };
  expect(doc.version).toBe(1);
  expect(Object.keys(doc.hooks)).toEqual([...COPILOT_HOOK_FILE.events]);
  for (const e of COPILOT_HOOK_FILE.events)
    expect(doc.hooks[e]).toEqual([{ type: 'command', bash: 'stepchain hook copilot' }]);
  expect(planHookFile(file, COPILOT_HOOK_FILE).changed).toBe(false);
  const remove = planHookFile(file, COPILOT_HOOK_FILE, { remove: true });
  expect(remove.after).toBe('');
  expect(remove.diff.join('\n')).toContain('/dev/null');
  writeOwnHookFile(remove);
  expect(existsSync(file)).toBe(false);
  // A grouped file (Claude's settings, the user's) is never deleted: emptied of ours, its object stays.
  const claude = path.join(freshDir(dir), 'settings.json');
  writeOwnHookFile(planHookFile(claude, CLAUDE_HOOK_FILE));
  const out = planHookFile(claude, CLAUDE_HOOK_FILE, { remove: true });
  expect(out.after).not.toBe('');
  expect(JSON.parse(out.after)).toEqual({});
});

test('a flat file: an event with an entry of its own keeps it and gets ours after it, one with another key of ours is repaired', () => {
  const file = path.join(freshDir(dir), 'stepchain.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      hooks: {
        PostToolUse: [{ type: 'command', bash: './log.sh' }],
        Stop: [{ type: 'command', bash: 'stepchain hook copilot', cwd: '/elsewhere' }],
      },
    }),
  );
  const plan = planHookFile(file, COPILOT_HOOK_FILE);
  expect(plan.repaired).toEqual(['Stop']);
  expect(plan.findings).toEqual(['Stop: the entry has "cwd", which may keep it from running']);
  const doc = JSON.parse(plan.after) as { hooks: Record<string, unknown[]> };
  expect(doc.hooks.PostToolUse).toEqual([
    { type: 'command', bash: './log.sh' },
    { type: 'command', bash: 'stepchain hook copilot' },
  ]);
  expect(doc.hooks.Stop).toEqual([{ type: 'command', bash: 'stepchain hook copilot' }]);
});

test('--remove never deletes a file of ours that holds a key twice: the member the last one hides stays', () => {
  const ours = '[{"type": "command", "bash": "stepchain hook copilot"}]';
  const mine = '[{"type": "command", "bash": "./log.sh"}]';
  for (const [text, kept] of [
    [
      `{"version": 1, "hooks": {"Stop": ${mine}}, "hooks": {"Stop": ${ours}}}\n`,
      { version: 1, hooks: { Stop: JSON.parse(mine) as unknown } },
    ],
    [`{"version": 2, "version": 1, "hooks": {"Stop": ${ours}}}\n`, { version: 1 }],
  ] as const) {
    const file = path.join(freshDir(dir), 'stepchain.json');
    writeFileSync(file, text);
    const plan = planHookFile(file, COPILOT_HOOK_FILE, { remove: true });
    expect(plan.events).toEqual(['Stop']);
    writeOwnHookFile(plan);
    expect(readFileSync(file, 'utf8')).toContain(text.includes('./log.sh') ? './log.sh' : '"version": 2');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(kept);
  }
});

test('a file of ours in another shape is refused in its own words: a hook file (Copilot), hook settings (Claude)', () => {
  const file = path.join(freshDir(dir), 'stepchain.json');
  writeFileSync(file, '{"version": 1, "hooks": null}\n');
  expect(() => planHookFile(file, COPILOT_HOOK_FILE)).toThrow(
    `${file}: "hooks" is not an object; not the GitHub Copilot CLI hook file format, so it is left as it is`,
  );
  expect(() => planHookFile(file, CLAUDE_HOOK_FILE)).toThrow(
    `${file}: "hooks" is not an object; not the Claude Code hook settings format, so it is left as it is`,
  );
});
