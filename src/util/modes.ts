/**
 * The modes of what stepchain creates: one rule (docs/journal.md, "Permissions").
 *
 * Everything stepchain writes about an agent's work (journals, blobs, run journals, the audit log, and every file
 * beside them: checkpoints, locks, torn-tail side files, tombstones, fork intents and snapshots, agent state) can
 * carry prompts, tool input and tool output, or names and heads of them, so it is owner-only, whatever the umask
 * allows. What is made to be shared (receipts, reports, public keys) is readable by all.
 */

/** A file under `.sdd/` (and the local key's state directory): owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;

/** A directory stepchain creates under `.sdd/` (and the local key's state directory): owner only. */
export const PRIVATE_DIR_MODE = 0o700;

/** A file made to be handed to others: a receipt, a report page, a public key. */
export const SHARED_FILE_MODE = 0o644;
