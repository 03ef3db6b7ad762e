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
