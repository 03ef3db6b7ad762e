import type { CheckedItem } from './types';
import { plural } from '../util/words';

/**
 * One checked file as one plain line, for the CLI's output and the Action's
 * log alike: `OK   journal <path>: 5 steps, head <hash> (ok, appended)`. The
 * append-only outcome is added when it says more than the status (a rename's
 * status names its target already). Unescaped: each door neutralises the line
 * for where it goes (the terminal sanitiser, the Action's safe log line).
 */
export function checkedItemLine(i: CheckedItem): string {
  const steps = plural(i.steps, 'step');
  const history = i.appendOnly && i.appendOnly !== 'renamed' && i.appendOnly !== i.status ? `, ${i.appendOnly}` : '';
  return `${i.ok ? 'OK  ' : 'FAIL'} ${i.kind} ${i.path}: ${steps}${i.head ? `, head ${i.head}` : ''} (${i.status}${history})`;
}
