import { rmSync } from 'node:fs';
import { runDemo } from '../src/demo/run';

// npm start: the replay section shows the table, one step and a diff, and the demo ends with the commands to walk the run.
test('the demo replays the sample run and ends with the commands to walk it', async () => {
  let out = '';
  const root = await runDemo((s) => void (out += s), { ...process.env, STEPCHAIN_AUDIT: 'off' });
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
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
