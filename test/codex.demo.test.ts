import { rmSync } from 'node:fs';
import { runCli } from '../src/cli/main';
import { runDemo } from '../src/cli/demo/run';

// npm start: one agent more than Claude Code. The Codex section installs the hooks and their trust, records a
// session's payloads through `stepchain hook codex` (the exit code from the rollout), and forks it to resume.
test('the demo records a Codex session through its hooks, with the exit code, and forks it to resume', async () => {
  let out = '';
  const env = { ...process.env };
  delete env.STEPCHAIN_AUDIT;
  delete env.CODEX_HOME;
  const root = await runDemo((s) => void (out += s), env, runCli);
  try {
    const section = out.slice(out.indexOf('== Codex CLI: the hooks'), out.indexOf('== Walk it yourself'));
    expect(section).toMatch(/\+\[hooks\.state\."[^"]+\/\.codex\/hooks\.json:session_start:0:0"\]/);
    const hooks = section.match(/^ {2}\S.* exit \d$/gm) ?? [];
    expect(hooks).toHaveLength(5);
    for (const h of hooks) expect(h).toMatch(/exit 0$/);
    const agent = 'codex-01a23c97-383d-7131-9535-6ac509ff97f5';
    expect(section).toMatch(
      new RegExp(`\\$ stepchain verify ${agent}\\n {2}OK [^\\n]*: 2 steps, head [0-9a-f]{64}\\n`),
    );
    expect(section).toContain(`tool_result {"exit_code":1,"response":""}`);
    expect(section).toMatch(/^ {4}cd \S+ && CODEX_HOME=\S+ codex exec resume [0-9a-f-]{36}$/m);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
