import { verifyJournalBytes } from '../../journal';
import type { CheckedItem, CheckFault } from '../types';
import { crlfFault, omittedFault, runOfFaults, type ItemCheck } from './common';

/**
 * One per-step journal's bytes, verified as `stepchain verify` does (the
 * chain, and the head when one is pinned for its agent). Its history against a
 * base is base.ts's; whether it is this shard's, the orchestrator's.
 */
export function checkJournal(rel: string, id: string, bytes: Buffer, expectedHead?: string): ItemCheck {
  const r = verifyJournalBytes(bytes, expectedHead === undefined ? {} : { expectedHead });
  const item: CheckedItem = {
    kind: 'journal',
    path: rel,
    id,
    steps: r.steps,
    head: r.head_hash,
    ok: r.ok,
    status: r.ok ? 'ok' : 'FAIL',
  };
  const faults: CheckFault[] = [];
  const crlf = crlfFault(item, bytes);
  if (crlf !== undefined) faults.push(crlf);
  for (const f of r.errors) {
    faults.push({
      item: 'journal',
      path: rel,
      // A head that is not the pinned one is at the journal's last row.
      line: f.kind === 'head_mismatch' && r.steps > 0 ? r.steps : f.line,
      kind: f.kind,
      message: `agent ${id}: ${f.kind}: ${runOfFaults(f)}${f.message}`,
      severity: 'error',
      id,
    });
  }
  const omitted = omittedFault(item, r.errors_omitted, 'error');
  if (omitted !== undefined) faults.push(omitted);
  if (!item.ok) item.status = 'FAIL';
  return { item, faults };
}

/** Pins that name an agent with no journal in the checkout: each a head_mismatch where the pins came from. */
export function orphanPinFaults(
  pins: Record<string, string>,
  agents: Set<string>,
  pinsPath: string,
  mine: (key: string) => boolean,
): CheckFault[] {
  const out: CheckFault[] = [];
  for (const agent of Object.keys(pins)) {
    // Each pin is judged once, by the shard its agent id falls in.
    if (agents.has(agent) || !mine(`pin:${agent}`)) continue;
    out.push({
      item: 'journal',
      path: pinsPath,
      line: null,
      kind: 'head_mismatch',
      message: `agent ${agent}: a head is pinned (${pins[agent]}) but no journal for this agent was found`,
      severity: 'error',
      id: agent,
    });
  }
  return out;
}
