import type { PageFault, PageVerifyResult, ReportBlob, ReportData } from './data';
import { byId } from './dom';
import { renderHeader } from './header';
import { base64Bytes } from './signature';
import { createVerifier, type PageEntry, type PageVerifier } from './verifier';

/**
 * The report page's one state object: what the page read, what it has verified so far, and what it shows.
 * Every part of the page (header.ts, receipt.ts, list.ts, detail.ts, blobs.ts, keys.ts, verdict.ts) takes it
 * and changes it only through the fields below.
 */

/** Signature states the page shows (and sets as `data-signature`). */
export type SignatureState = 'unsigned' | 'not_checked' | 'verified' | 'invalid';

/** The receipt's signature as the page currently judges it. */
export interface SignatureView {
  state: SignatureState | null;
  /** The key it verified under. */
  key: string | null;
  faults: PageFault[];
  /**
   * Keys a reviewer pasted that did not hold: the signature stays unchecked (another key may have signed it),
   * but the page no longer says that no key was given.
   */
  pastedFailed: string[];
  /** The receipt section's "Signature" cell (null: no receipt). */
  cell: HTMLElement | null;
}

/** The virtual step list: which entries the filter keeps, the selection, and the rows in the DOM. */
export interface ListView {
  /** Indexes into `entries` that pass the filter. */
  view: number[];
  /** Index into `view` (-1: none). */
  sel: number;
  filterText: string;
  /** Set once the reader moves the selection: verification must not take it away afterwards. */
  userMoved: boolean;
  /** Lower-cased search text per entry, built on first use. */
  hay: (string | undefined)[];
  /** The rows in the DOM, by view position. */
  rendered: Map<number, HTMLElement>;
}

/** The embedded blobs' check and its display. */
export interface BlobView {
  /** What the page found for each embedded blob (absent: not checked yet; a string: what its bytes hash to). */
  checked: Map<string, string | true>;
  faults: PageFault[];
  /** Embedded blobs not checked yet. */
  queue: ReportBlob[];
  /** The summary line and each shown row's status cell (null and empty: no blobs section). */
  summary: HTMLElement | null;
  statusCells: Map<string, HTMLElement>;
}

/** The page elements the parts update. */
export interface PageElements {
  list: HTMLElement;
  spacer: HTMLElement;
  search: HTMLInputElement;
  onlyFaults: HTMLInputElement;
  count: HTMLElement;
  detail: HTMLElement;
  /** The header's "Steps" and "Head hash" cells, filled in by the verdict. */
  steps: HTMLElement;
  head: HTMLElement;
  status: HTMLElement;
  title: HTMLElement;
  statusDetail: HTMLElement;
  bar: HTMLElement;
  faults: HTMLElement;
}

export interface ReportState {
  doc: Document;
  root: HTMLElement;
  data: ReportData;
  /** The embedded journal bytes. */
  journal: Uint8Array;
  verifier: PageVerifier;
  /** The lines verified so far (the verifier's own array, growing as it runs). */
  entries: PageEntry[];
  blobByDigest: Map<string, ReportBlob>;
  /** The page's verdict over the chain, once verification finished. */
  finished: PageVerifyResult | null;
  signature: SignatureView;
  list: ListView;
  blobs: BlobView;
  ui: PageElements;
}

/** The state for a page's data: the verifier set up (not run), the header written, the elements found. */
export function createState(doc: Document, data: ReportData): ReportState {
  const journal = base64Bytes(data.journal_b64);
  const verifier = createVerifier(journal, { expectedHead: data.expected_head, window: data.window });
  const header = renderHeader(doc, data, verifier);
  const $ = (id: string): HTMLElement => byId(doc, id);
  return {
    doc,
    root: doc.documentElement,
    data,
    journal,
    verifier,
    entries: verifier.entries,
    blobByDigest: new Map(data.blobs.map((b) => [b.digest, b])),
    finished: null,
    signature: { state: null, key: null, faults: [], pastedFailed: [], cell: null },
    list: { view: [], sel: -1, filterText: '', userMoved: false, hay: [], rendered: new Map() },
    blobs: {
      checked: new Map(),
      faults: [],
      queue: data.blobs.filter((b) => b.b64 !== undefined),
      summary: null,
      statusCells: new Map(),
    },
    ui: {
      list: $('list'),
      spacer: $('list-spacer'),
      search: $('search') as HTMLInputElement,
      onlyFaults: $('only-faults') as HTMLInputElement,
      count: $('count'),
      detail: $('detail'),
      steps: header.steps,
      head: header.head,
      status: $('status'),
      title: $('status-title'),
      statusDetail: $('status-detail'),
      bar: $('progress-bar'),
      faults: $('faults'),
    },
  };
}

const lossyUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** A journal line's text (invalid UTF-8 shown as U+FFFD: the verifier reports it). */
export function textOf(state: ReportState, e: PageEntry): string {
  return lossyUtf8.decode(state.journal.subarray(e.start, e.end));
}

/** Bytes shown as text, invalid UTF-8 as U+FFFD. */
export function lossyText(bytes: Uint8Array): string {
  return lossyUtf8.decode(bytes);
}
