/**
 * The JSON document a report page embeds (`<script type="application/json" id="stepchain-data">`),
 * written by `src/report/report.ts` and read by the page script (`main.ts`). Types only.
 */

/** A fault as the page shows it (chain faults carry their 1-based journal line). */
export interface PageFault {
  line: number | null;
  kind: string;
  message: string;
}

/** A verification verdict: what the generator found, or what the page found. */
export interface PageVerifyResult {
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: PageFault[];
}

export interface ReportData {
  format: 2;
  generator: string;
  generated_at: string;
  title: string;
  agent_id: string;
  source: { kind: 'journal' | 'receipt'; path: string };
  /** The embedded journal lines' exact bytes, base64 (the whole journal, or the window's lines). */
  journal_b64: string;
  /** The head the chain must end at (a receipt's manifest head), or null. */
  expected_head: string | null;
  /** What the generator's own verification (src/journal) found over the whole journal. */
  generator_verify: PageVerifyResult;
  /** Set when only a window of the journal is embedded (`report --max-steps`). */
  window: ReportWindow | null;
  receipt: ReportReceiptInfo | null;
  blobs: ReportBlob[];
  blob_caps: { per_blob: number; total: number };
  forks: ReportForkNode | null;
  /**
   * The files each step changed (docs/provenance.md), from the run journal of the same id, when its chain verified
   * and each record names the step's step_hash; absent when there is none. The page shows them only under a row
   * with that step_hash.
   */
  step_files?: ReportStepFiles[];
}

export interface ReportStepFiles {
  seq: number;
  step_hash: string;
  /** `blob` and `mode` are null for a deletion. */
  files: { path: string; blob: string | null; mode: string | null }[];
}

/** Which lines of the journal the page holds, and how it anchors them to the rest of the chain. */
export interface ReportWindow {
  /** The 1-based journal line of the first embedded line. */
  first_line: number;
  /** The seq the first embedded row must have. */
  first_seq: number;
  /** The step_hash the first embedded row must link to (the generator verified the chain up to it). */
  anchor_hash: string;
  /** Lines and steps of the whole journal. */
  total_lines: number;
  total_steps: number;
}

export interface ReportReceiptInfo {
  /** manifest.json's exact bytes, base64 (the signature covers exactly these). */
  manifest_b64: string;
  /** The 64-byte Ed25519 signature, base64, when the receipt is signed. */
  signature_b64: string | null;
  signed: boolean;
  /** The public keys given to the generator (`--public-key`): the page checks the signature with each. */
  public_keys: ReportPublicKey[];
  /** The key id the generator verified the signature under, or null. */
  key_id: string | null;
  /** What the generator checked about the signature, in words. */
  signature_check: string;
  /** Receipt-level problems the generator found (manifest vs chain, structure), signature faults excluded. */
  generator_faults: PageFault[];
  /**
   * A keyless (Sigstore) signature beside the receipt: the signer its certificate names, and whether the generator
   * verified it under an identity policy (its faults, when not, are among generator_faults).
   */
  keyless: { bundle: string; identity: string | null; issuer: string | null; verified: boolean; text: string } | null;
}

export interface ReportPublicKey {
  key_id: string;
  /** The raw 32-byte Ed25519 public key, base64. */
  raw_b64: string;
  /** Where the generator read it (a file name). */
  source: string;
}

export interface ReportBlob {
  digest: string;
  /** Size in bytes, or null when the blob was not found. */
  size: number | null;
  /** The bytes, base64, when embedded. */
  b64?: string;
  /** Why the bytes are not embedded (not found, over the cap). */
  skipped?: string;
}

/** One node of a fork tree (the root is the run itself). */
export interface ReportForkNode {
  id: string;
  label?: string | null;
  branch?: string | null;
  from_step?: number | null;
  parent_step_hash?: string | null;
  /** Steps recorded in the fork after it was made, whether its journal verifies, whether its worktree is gone. */
  steps_since?: number | null;
  journal_ok?: boolean | null;
  missing?: boolean;
  /** True for the run this report is about. */
  current?: boolean;
  children: ReportForkNode[];
}
