import { createHash, type Hash } from 'node:crypto';
import { MAX_LINE_BYTES } from '../canonical';
import { DigestSet, type DigestBudget } from '../util/digest-set';
import { writeListed, type HeldManifest } from './held-manifest';
import {
  DIGESTS_KEY,
  GENERAL_MANIFEST_MAX_BYTES,
  LISTED,
  manifestTooLarge,
  readListedRest,
  type ReadManifest,
} from './manifest';
import type { ReceiptFormatError, TarMemberSink } from './tar';

export { GENERAL_MANIFEST_MAX_BYTES };

/**
 * The most bytes kept before the digests' array (the head) and after it (the tail): a canonical manifest's other
 * fields are short (a safe id, a producer's name, a date, a digest, two integers). Past it: read the general way.
 */
export const MANIFEST_PART_MAX_BYTES = 64 * 1024;

/** What a streamed manifest came to when its member ended. */
export type StreamedManifest =
  /** Read as it streamed: the manifest, and what is kept of its bytes (never made whole). */
  | { kind: 'read'; read: ReadManifest; held: HeldManifest }
  /** Not in the form read as it streams: its bytes, whole, for the general reading (readManifest). */
  | { kind: 'bytes'; bytes: Buffer }
  /** Not in that form and larger than GENERAL_MANIFEST_MAX_BYTES: its bytes were not kept. */
  | { kind: 'too_large'; fault: ReceiptFormatError };

/** What a manifest's claimed size is trusted for before its bytes arrive (room for the digests in that much). */
const FIRST_BYTES = 1 << 20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE = 0x5d;

/**
 * `manifest.json` read as its pieces arrive (any size, any boundaries), as readManifest reads it whole, without
 * ever holding it whole: the head (up to and including `"blob_digests":[`), each listed digest (`"` 64 lowercase
 * hex digits `"` and `,` or `]`) read straight into a DigestSet, then the tail, and the SHA-256 of every byte. At
 * the end, readListedRest (readManifest's own end) judges the head and tail. Wherever the form breaks (no head
 * within MANIFEST_PART_MAX_BYTES, an item of another form, a digest listed twice, a tail too long, an end that does
 * not read), the bytes so far are made again and the member is collected whole from there, for readManifest to
 * read as it always did: every fault is named as before. Only a manifest over GENERAL_MANIFEST_MAX_BYTES is then
 * refused instead (`manifest_too_large`), its bytes not collected.
 */
export class ManifestStream implements TarMemberSink {
  private state: 'head' | 'items' | 'tail' | 'whole' | 'too_large' = 'head';
  /** The bytes up to and including the array's `[` (while 'head': the bytes so far). */
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);
  private readonly digests: DigestSet;
  /** The array's `]` was read (an item ended with it, or the array is empty). */
  private closed = false;
  /** An item that began in an earlier piece: its bytes so far. */
  private readonly item = Buffer.allocUnsafe(LISTED);
  private itemFill = 0;
  private readonly hash: Hash = createHash('sha256');
  /** After a fallback: the bytes collected whole, and how many. */
  private whole: Buffer | undefined;
  private fill = 0;
  /** The bytes pushed so far. */
  private seen = 0;

  /**
   * `size`: the member's size, as its header claims (trusted for no more than the set's first room). `budget`: what
   * the digests read count against (digest-set.ts).
   */
  constructor(
    private readonly size: number,
    private readonly budget?: DigestBudget,
  ) {
    this.digests = new DigestSet(Math.floor(Math.min(size, FIRST_BYTES) / LISTED), budget);
  }

  data(piece: Buffer): void {
    if (this.state === 'whole') return this.collect(piece);
    if (this.state === 'too_large') return;
    this.hash.update(piece);
    this.seen += piece.length;
    // The claimed size trusted once more than FIRST_BYTES of it arrived, as archive-scan.ts trusts it (a 1 KB archive
    // claiming 8 GiB makes no set of 128 million), and never past the longest manifest read (MAX_LINE_BYTES).
    if (this.seen > FIRST_BYTES && this.seen - piece.length <= FIRST_BYTES)
      this.digests.reserve(Math.floor(Math.min(this.size, MAX_LINE_BYTES) / LISTED));
    let at = 0;
    if (this.state === 'head') at = this.readHead(piece);
    if (this.state === 'items') at = this.readItems(piece, at);
    if (this.state === 'tail' && at < piece.length) this.readTail(piece.subarray(at));
  }

  /** The head's bytes from `piece`; returns where the items begin in it (or its length). */
  private readHead(piece: Buffer): number {
    const before = this.head.length;
    const take = Math.min(piece.length, MANIFEST_PART_MAX_BYTES - before);
    this.head = Buffer.concat([this.head, piece.subarray(0, take)]);
    // The first `"blob_digests":[` in the bytes, as readManifest finds it (one may straddle two pieces).
    const key = this.head.indexOf(DIGESTS_KEY, Math.max(0, before - DIGESTS_KEY.length + 1));
    if (key < 0) {
      if (this.head.length >= MANIFEST_PART_MAX_BYTES) this.fallBack(piece.subarray(take));
      return piece.length;
    }
    const end = key + DIGESTS_KEY.length;
    this.head = this.head.subarray(0, end);
    this.state = 'items';
    return end - before;
  }

  /** The listed digests from `piece` at `at`; returns where the tail begins in it (or its length). */
  private readItems(piece: Buffer, at: number): number {
    if (this.digests.size === 0 && this.itemFill === 0 && at < piece.length && piece[at] === CLOSE) {
      this.close();
      return at + 1;
    }
    while (at < piece.length) {
      let text: Buffer = piece;
      let from = at;
      if (this.itemFill > 0 || piece.length - at < LISTED) {
        // An item that straddles pieces is put together here first.
        const n = Math.min(LISTED - this.itemFill, piece.length - at);
        piece.copy(this.item, this.itemFill, at, at + n);
        this.itemFill += n;
        at += n;
        if (this.itemFill < LISTED) return at;
        text = this.item;
        from = 0;
      } else at += LISTED;
      const end = text[from + LISTED - 1];
      const added =
        text[from] === QUOTE && text[from + 65] === QUOTE && (end === COMMA || end === CLOSE)
          ? this.digests.addHexBytes(text, from + 1)
          : undefined;
      if (added !== true) {
        // Not a digest of the form, or one listed twice: the item is the general reading's, from its first byte.
        if (text === piece) this.fallBack(piece.subarray(from));
        else this.fallBack(piece.subarray(at));
        return piece.length;
      }
      this.itemFill = 0;
      if (end === CLOSE) {
        this.close();
        return at;
      }
    }
    return at;
  }

  private close(): void {
    this.closed = true;
    this.state = 'tail';
  }

  private readTail(bytes: Buffer): void {
    if (this.tail.length + bytes.length > MANIFEST_PART_MAX_BYTES) return this.fallBack(bytes);
    this.tail = Buffer.concat([this.tail, bytes]);
  }

  /**
   * The bytes read so far made again (the head, the digests as listed, an item's bytes so far, the tail): only
   * while every digest read was new, so the set holds each listed one once, in order.
   */
  private soFar(): Buffer {
    const n = this.digests.size;
    const listed = n === 0 ? 0 : n * LISTED - 1;
    const length = this.head.length + listed + (n > 0 || this.closed ? 1 : 0) + this.itemFill + this.tail.length;
    const out = Buffer.allocUnsafe(length);
    let at = writeListed(this.digests, out, this.head.copy(out, 0));
    if (this.closed) out[at++] = CLOSE;
    else if (n > 0) out[at++] = COMMA;
    at += this.item.copy(out, at, 0, this.itemFill);
    this.tail.copy(out, at);
    return out;
  }

  /** The form broke: the member is collected whole from here (`rest`: the piece's bytes not yet read), or refused. */
  private fallBack(rest: Buffer): void {
    // The digests read are read again by the general reading: held no longer here.
    this.budget?.release(this.digests.size);
    if (this.size > GENERAL_MANIFEST_MAX_BYTES) {
      this.tooLarge();
      return;
    }
    const so = this.soFar();
    this.whole = Buffer.allocUnsafe(Math.max(this.size, so.length + rest.length));
    this.fill = so.copy(this.whole, 0);
    this.state = 'whole';
    this.head = this.tail = Buffer.alloc(0);
    this.collect(rest);
  }

  private tooLarge(): void {
    this.state = 'too_large';
    this.whole = undefined;
    this.head = this.tail = Buffer.alloc(0);
  }

  private collect(piece: Buffer): void {
    const whole = this.whole!;
    // More bytes than the header claimed cannot come from a tar member; refused rather than grown, should they.
    if (this.fill + piece.length > whole.length) return this.tooLarge();
    this.fill += piece.copy(whole, this.fill);
  }

  /** The member ended: the manifest read, or its bytes for the general reading, or the refusal. */
  end(): StreamedManifest {
    if (this.state === 'tail') {
      const open = this.head.length - 1;
      const rest = Buffer.concat([this.head, Buffer.from([CLOSE]), this.tail]);
      const size = this.head.length + (this.digests.size === 0 ? 1 : this.digests.size * LISTED) + this.tail.length;
      const read = readListedRest(rest, { open, end: size - this.tail.length }, size, this.digests, false);
      if (read !== undefined) {
        const held = {
          head: this.head.subarray(0, open),
          tail: this.tail,
          digests: this.digests,
          size,
          sha256: this.hash.digest(),
        };
        return { kind: 'read', read, held };
      }
    }
    if (this.state !== 'whole' && this.state !== 'too_large') this.fallBack(Buffer.alloc(0));
    if (this.state === 'whole') return { kind: 'bytes', bytes: this.whole!.subarray(0, this.fill) };
    return { kind: 'too_large', fault: manifestTooLarge(this.size) };
  }
}
