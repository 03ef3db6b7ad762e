import { closeSync, fstatSync } from 'node:fs';
import { readRange } from './fs';
import { DEFAULT_MAX_READ_BYTES, openRegularFile } from './nofollow';

/**
 * A file that only grows (a journal an agent appends to), read across looks in one process a piece at a time: each
 * look walks only the whole lines appended since the last one, seeded with what the walk had made of the lines
 * before (`S`). A look that cannot trust what it read before (the file replaced: another device or inode; cut: it is
 * shorter; its last bytes read changed; more appended than one read may hold), or whose new lines do not hold as an
 * append (`walk` says so), is `undefined`: the caller reads the file whole, as it did before. A line still being
 * written (no newline yet) waits for the next look. Edits before the last bytes read go unseen until one of those
 * happens: what a reader built on this links is checked again, whole, where it counts (`run verify`, `check`).
 */
export class GrownFiles<S> {
  private readonly known = new Map<string, Read<S>>();

  constructor(
    /** What the walk makes of no lines. */
    private readonly empty: () => S,
    /**
     * Walks whole lines (`bytes`, from offset `at` of the file, ends with a newline) appended after `state`, into
     * it; false, leaving it as it was, when they do not hold as an append.
     */
    private readonly walk: (bytes: Buffer, state: S, at: number) => boolean,
  ) {}

  /** What the walk has made of every whole line of `file` now: null when there is no such file, undefined: read it whole. */
  look(file: string): S | null | undefined {
    const opened = openRegularFile(file);
    if (opened === undefined) {
      this.known.delete(file);
      return null;
    }
    try {
      const st = fstatSync(opened.fd, { bigint: true });
      const k = this.known.get(file);
      if (k !== undefined && k.dev === st.dev && k.ino === st.ino && opened.size >= k.size && tailHolds(opened.fd, k))
        if (this.walkOn(opened.fd, opened.size, k)) return k.state;
      const fresh: Read<S> = { dev: st.dev, ino: st.ino, size: 0, tail: Buffer.alloc(0), state: this.empty() };
      if (this.walkOn(opened.fd, opened.size, fresh)) {
        this.known.set(file, fresh);
        return fresh.state;
      }
    } finally {
      closeSync(opened.fd);
    }
    this.known.delete(file);
    return undefined;
  }

  /** Forgets what was read (tests compare a look that walks on with one from the start). */
  forget(): void {
    this.known.clear();
  }

  /** Walks k's file from k.size to its last newline before `size`; false when the lines do not hold. */
  private walkOn(fd: number, size: number, k: Read<S>): boolean {
    if (size === k.size) return true;
    if (size - k.size > DEFAULT_MAX_READ_BYTES) return false;
    const bytes = readRange(fd, k.size, size - k.size);
    grownReads.walkedBytes += bytes.length;
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end === 0) return true; // one line still being written
    if (!this.walk(bytes.subarray(0, end), k.state, k.size)) return false;
    k.size += end;
    k.tail = Buffer.from(bytes.subarray(Math.max(0, end - TAIL_BYTES), end));
    return true;
  }
}

/** What was read of a file: where, which file it was, the bytes that end what was read, and the walk's state. */
interface Read<S> {
  dev: bigint;
  ino: bigint;
  size: number;
  /** The last bytes read (up to TAIL_BYTES): still there, unchanged, or the file is read again from its start. */
  tail: Buffer;
  state: S;
}

const TAIL_BYTES = 256;

function tailHolds(fd: number, k: Read<unknown>): boolean {
  return readRange(fd, k.size - k.tail.length, k.tail.length).equals(k.tail);
}

/** Bytes walked on since the process started, across every GrownFiles (what the tests hold the reading to). */
export const grownReads = { walkedBytes: 0 };
