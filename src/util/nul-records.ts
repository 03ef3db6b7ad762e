/**
 * Records separated by NUL bytes, as bytes (views of `out`, none copied), the empty one after the last NUL left out:
 * git's `-z` output, a process's /proc/<pid>/cmdline. Bytes, not text: a record need not be UTF-8 (a file name, an
 * argument), and decoding first would make two records one.
 */
export function nulRecords(out: Buffer): Buffer[] {
  const records: Buffer[] = [];
  for (let at = 0; at < out.length;) {
    const nul = out.indexOf(0, at);
    const end = nul < 0 ? out.length : nul;
    records.push(out.subarray(at, end));
    at = end + 1;
  }
  return records;
}

/**
 * `nulRecords` for output that comes in chunks (a `git ls-tree -r -z` of a monorepo is hundreds of megabytes): each
 * record is handed to `onRecord` as soon as its NUL has come, and only the unfinished last one is kept between
 * chunks. A record is a view of the chunk: `onRecord` keeps what it needs as strings, never the view (that would
 * keep the chunk). `end` hands over a last record with no NUL after it.
 */
export function nulRecordStream(onRecord: (rec: Buffer) => void): { push(chunk: Buffer): void; end(): void } {
  let rest: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      const buf = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
      let at = 0;
      for (let nul = buf.indexOf(0); nul >= 0; nul = buf.indexOf(0, at)) {
        onRecord(buf.subarray(at, nul));
        at = nul + 1;
      }
      rest = Buffer.from(buf.subarray(at)); // a copy: the chunk is not kept
    },
    end() {
      if (rest.length > 0) onRecord(rest);
      rest = Buffer.alloc(0);
    },
  };
}
