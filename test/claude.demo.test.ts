import { runCli } from '../src/cli/main';
import { readFileSync, rmSync } from 'node:fs';
import { runDemo } from '../src/cli/demo/run';

// npm start: the Claude Code section installs the hooks, records a session through `stepchain hook claude`,
// verifies and replays it, and forks it at step 0 with a conversation to resume.
test('the demo records a Claude Code session through its hooks, then forks it with a conversation to resume', async () => {
  let out = '';
  const env = { ...process.env };
  delete env.STEPCHAIN_AUDIT;
  delete env.CLAUDE_CONFIG_DIR;
  const root = await runDemo((s) => void (out += s), env, runCli);
  try {
    const section = out.slice(out.indexOf('== Claude Code: one command'), out.indexOf('== Run journal: a live run'));
    expect(section).toMatch(/\$ stepchain init claude\n {2}--- \/dev\/null\n/);
    expect(section).toContain("stepchain's hooks are already installed; unchanged");
    const hooks = section.match(/^ {2}\S.* exit \d$/gm) ?? [];
    expect(hooks).toHaveLength(9);
    for (const h of hooks) expect(h).toMatch(/exit 0$/);
    const agent = 'claude-7d3a9c1e-5b2f-4c8d-9e0a-1f2b3c4d5e6f';
    expect(section).toMatch(
      new RegExp(`\\$ stepchain verify ${agent}\\n {2}OK [^\\n]*: 3 steps, head [0-9a-f]{64}\\n`),
    );
    expect(section).toMatch(/ {4}1 {2}[0-9 :-]+ {3}claude-sonnet-4-5-20250929 {2}Edit /);
    expect(section).toMatch(/OK [^\n]*: 9 events, 1 pinned mutation, capabilities: claude=observed/);
    const resume = /^ {4}cd (\S+) && CLAUDE_CONFIG_DIR=(\S+) claude --resume ([0-9a-f-]{36})$/m.exec(section);
    expect(resume).not.toBeNull();
    expect(section).toContain(
      'src/stats.py in the fork (the files of step 0, before the fix):\n  def mean(xs):\n      return sum(xs) / (len(xs) - 1)\n',
    );
    const copy =
      /^ {4}transcript (\S+) \(lines 1\.\.5 of the session, ending with the result of toolu_01TestRun\)$/m.exec(
        section,
      );
    const last = JSON.parse(readFileSync(copy![1]!, 'utf8').trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'user', sessionId: resume![3] });
    expect(out.slice(out.lastIndexOf('== Walk it yourself =='))).toContain(`stepchain replay ${agent}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
