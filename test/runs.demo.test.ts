import { runCli } from '../src/cli/main';
import { rmSync } from 'node:fs';
import { runDemo } from '../src/cli/demo/run';

// npm start: the run-journal section shows a pinned mutation that verifies, a flagged one that fails, the attributed
// divergence, and the audit trail of everything the demo did (with the demo's own temporary key).
test('the demo pins a mutation, fails a deterministic replay, attributes the divergence and verifies its audit trail', async () => {
  let out = '';
  const env = { ...process.env };
  delete env.STEPCHAIN_AUDIT;
  const root = await runDemo((s) => void (out += s), env, runCli);
  try {
    const section = out.slice(out.indexOf('== Run journal: a live run pins'));
    expect(section).toMatch(
      /\$ stepchain run ingest live-run [^\n]*\n {2}ingested 6 stream-json events [^\n]*claude recorded as observed, 1 context mutation\n {4}\[2\] compact_boundary step 0 [0-9a-f]{64}\n/,
    );
    expect(section).toMatch(
      /\$ stepchain run verify live-run\n {2}OK [^\n]*4 events, 1 pinned mutation, capabilities: claude=observed[^\n]*\n {2}\(exit 0\)/,
    );
    expect(section).toMatch(/\[2\] compact_boundary step 0 [0-9a-f]{64} {2}FLAGGED/);
    expect(section).toMatch(
      /\$ stepchain run verify replay-run\n {2}FAIL [^\n]*\n {2}[^\n]*journal\.jsonl:3: flagged_mutation at index 2: [^\n]*compact_boundary[^\n]*\n {2}\(exit 1\)/,
    );
    expect(section).toMatch(
      /"reason_code":"provider_state_mutation","mutation_kind":"compact_boundary","fields_changed":\[[^\]]*\]\}\n {2}\(exit 1\)/,
    );
    const audit = out.slice(out.indexOf('== Audit trail'));
    expect(audit).toMatch(/\$ stepchain audit verify\n {2}OK [^\n]*: \d+ entries in 1 file/);
    for (const t of ['replay.step', 'replay.fork', 'replay.export', 'replay.publish', 'provider.state_mutation'])
      expect(audit).toContain(`  ${t}  `);
    expect(audit).toMatch(
      /\$ stepchain audit verify --dir \.sdd\/tampered-audit\n {2}FAIL [^\n]*\n {2}[^\n]*\.jsonl:1: hmac_mismatch/,
    );
    expect(out.slice(out.lastIndexOf('== Walk it yourself =='))).toContain('stepchain audit verify');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('with STEPCHAIN_AUDIT=off the demo still runs and says the audit trail is off', async () => {
  let out = '';
  const root = await runDemo((s) => void (out += s), { ...process.env, STEPCHAIN_AUDIT: 'off' }, runCli);
  try {
    expect(out).toContain('(audit logging is off here: STEPCHAIN_AUDIT=off)');
    expect(out).toMatch(
      /\$ stepchain run diff live-run clean-replay\n {2}diverged at index 2: provider_state_mutation \(compact_boundary\)/,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
