import { runCli } from '../src/cli/main';
import { rmSync } from 'node:fs';
import { runDemo } from '../src/cli/demo/run';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';

// npm start: the replay section shows the table, one step and a diff, and the demo ends with the commands to walk the run.
test('the demo replays the sample run and ends with the commands to walk it', async () => {
  let out = '';
  const root = await runDemo((s) => void (out += s), { ...process.env, STEPCHAIN_AUDIT: 'off' }, runCli);
  try {
    const section = out.slice(out.indexOf('== Replay: the run as a table of steps'));
    expect(section).toMatch(
      /\$ stepchain replay agent-demo\n {2}agent-demo: 5 steps, head [0-9a-f]{64}, chain verified/,
    );
    expect(section).toMatch(
      /\$ stepchain show agent-demo 2\n[\s\S]*prompt {6}Fix the bug in add\(\)\.[\s\S]*\(exit 0\)/,
    );
    expect(section).toMatch(
      /\$ stepchain diff agent-demo \S+\n {2}left {2}[^\n]*chain verified[^\n]*\n {2}right [^\n]*chain verified[^\n]*\n {2}diverged at step 2: [\s\S]*?\(exit 1\)/,
    );
    const tail = out.slice(out.lastIndexOf('== Walk it yourself =='));
    expect(tail).toContain('stepchain replay agent-demo ');
    // Every stepchain command of the list, pasted in its order, runs: none is a usage or input error (exit 2),
    // e.g. a fork removed before a command that reads it.
    const lines = tail.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
    // `export A=x B=y` (the demo's keys) holds for every command after it.
    const exported: NodeJS.ProcessEnv = {};
    for (const l of lines.filter((x) => x.startsWith('export ')))
      for (const kv of l.split(/\s+/).slice(1)) exported[kv.split('=')[0]!] = kv.slice(kv.indexOf('=') + 1);
    expect(exported['STEPCHAIN_AUDIT_KEY_PATH']).toBe(`${root}/.sdd-keys/audit.key`);
    const walk = lines.filter((l) => /^(?:[A-Z_]+=\S+ )*stepchain /.test(l));
    expect(walk.length).toBeGreaterThan(8);
    for (const line of walk) {
      const words = line.split(/\s+/);
      const env: NodeJS.ProcessEnv = { STEPCHAIN_AUDIT: 'on', ...exported };
      while (/^[A-Z_]+=/.test(words[0]!)) {
        const [k, ...v] = words.shift()!.split('=');
        env[k!] = v.join('=');
      }
      // In-process: what is checked is that each pasted command runs (no usage or input error), not the Node start.
      const r = await cliInProcess(words.slice(1), {
        cwd: root,
        env,
      });
      expectNoStack(r);
      expect([line, r.code, r.code === 2 ? r.stderr : '']).toEqual([line, r.code === 1 ? 1 : 0, '']);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
