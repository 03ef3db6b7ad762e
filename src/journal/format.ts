import { existsSync } from 'node:fs';
import path from 'node:path';
import { IntegrityError } from '../errors';
import type { CheckpointRecord, FileIdentity } from '../util/checkpoint';
import { chainFileIdentity, ChainFormatData } from '../util/chain-file';
import type { ChainFormat, TailRepair, Vouched, Walked } from '../util/chain-file';
import { refuseNonRegular } from '../util/nofollow';
import type { RollbackFault } from '../util/rollback';
import {
  journalCheckpointBody,
  journalCheckpointFile,
  JOURNAL_CHECKPOINT_KIND,
  restoreJournalState,
} from './checkpoint';
import { GENESIS, JournalRollbackError, type ChainState } from './recover';
import { checkpointedJournalTip } from './rollback';
import { checkTail, refuseNoRows } from './tail';
import { refuseRemovedJournal } from './tombstone';
import { verifyJournalFilePrefix } from './verify';

/**
 * The per-step journal's rules for the chain-file writer (src/util/chain-file.ts):
 * its state is the verified prefix (offset, steps, head); its walk is the
 * recovery walk (`checkTail`); a removed fork's journal is refused by its
 * tombstone rather than started afresh.
 */
export class JournalFormat extends ChainFormatData implements ChainFormat<ChainState> {
  constructor(
    readonly dir: string,
    target: string,
    /** `<root>` when the journal is laid out in a project (`<root>/.sdd/runtime/journal/<id>/`). */
    private readonly root: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    super(JOURNAL_CHECKPOINT_KIND, 'steps', target, journalCheckpointFile(target), { pauseName: 'journal' });
  }

  empty(): ChainState {
    return GENESIS;
  }

  identity(): FileIdentity | undefined {
    refuseNonRegular(this.target, 'cannot open for appending'); // a link, a FIFO, a directory: named, never walked
    return chainFileIdentity(this.target);
  }

  restore(saved: Record<string, unknown>, id: FileIdentity): ChainState | undefined {
    const s = restoreJournalState(this.target, saved, id);
    // The rule verify applies to a journal without rows holds for a checkpointed one too.
    if (s !== undefined) refuseNoRows(this.target, s.offset, s.steps);
    return s;
  }

  record(state: ChainState, id: FileIdentity, written?: Uint8Array): Record<string, unknown> | undefined {
    return journalCheckpointBody(this.target, id, state, written);
  }

  walk(_priors: readonly Vouched[], id: FileIdentity): Walked<ChainState> {
    const file = this.target;
    const size = Number(id.size);
    // The torn-tail rule (docs/journal.md): refuse anything but valid rows and a torn tail.
    const t = checkTail(file, GENESIS, size, this.env);
    const repairs: TailRepair[] = [];
    if (t.unterminatedRowEnd !== undefined) repairs.push({ file, finishAt: t.unterminatedRowEnd });
    else if (t.tornFrom !== undefined) repairs.push({ file, tornFrom: t.tornFrom, size });
    const offset = t.unterminatedRowEnd !== undefined ? t.unterminatedRowEnd + 1 : t.validEnd;
    return {
      state: { offset, head: t.head, steps: t.steps },
      steps: t.steps,
      repairs,
      // Where the file holds more rows than were vouched for, the vouched prefix is walked again to learn which row
      // ends it (only then: an append keeps the checkpoint in step).
      headAt: (v) => {
        if (t.steps === v.steps) return t.head;
        const prefix = verifyJournalFilePrefix(file, v.endIn(file), this.env);
        return prefix.steps === v.steps ? prefix.head_hash : undefined;
      },
    };
  }

  vouchedBy(state: ChainState): Vouched {
    return { steps: state.steps, head: state.head, endIn: () => state.offset };
  }

  vouchedIn(record: CheckpointRecord): Vouched | undefined {
    const tip = checkpointedJournalTip(record);
    return tip === undefined ? undefined : { steps: tip.steps, head: tip.head, endIn: () => tip.end };
  }

  rollbackError(f: RollbackFault): Error {
    return new JournalRollbackError(this.target, f);
  }

  /**
   * A journal this writer verified that disappeared is not started afresh; nor is a removed fork's (refused,
   * naming its tombstone).
   */
  onMissing(mine?: Vouched): void {
    if (mine !== undefined && mine.steps > 0)
      throw new IntegrityError(
        `${this.target}: the journal (${mine.steps} steps, head ${mine.head}) disappeared; refusing to start a fresh chain in its place`,
      );
    if (this.root !== undefined) refuseRemovedJournal(this.root, path.basename(path.resolve(this.dir)), this.target);
  }

  /** The directory went away while we waited for the lock (a fork removed under us): say so, naming the tombstone. */
  onLockError(): void {
    if (!existsSync(this.dir)) this.onMissing();
  }
}
