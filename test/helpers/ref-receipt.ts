import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { writeTar } from '../../src/receipt/tar-write';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A receipt's manifest and journal member for given refs and a given list (see writeRefReceipt), and its head. */
export function refReceiptParts(
  listed: readonly string[],
  rows: readonly (readonly string[])[],
  result: string | null = null,
): { manifest: Buffer; journal: Buffer; head: string } {
  let prev = '0'.repeat(64);
  const input = sha('input');
  const toolResult = result === null ? 'null' : JSON.stringify(result);
  const lines: string[] = [];
  rows.forEach((refs, i) => {
    const h = sha(
      `{"input_hash":"${input}","model":null,"prev_hash":"${prev}","prompt":${i},"tool_call":null,"tool_result":${toolResult}}`,
    );
    lines.push(
      `{"blob_refs":[${refs.map((r) => `"${r}"`).join(',')}],"input_hash":"${input}","model":null,"prev_hash":"${prev}","prompt":${i},"seq":${i},"step_hash":"${h}","tool_call":null,"tool_result":${toolResult},"ts":1796000000.5}\n`,
    );
    prev = h;
  });
  const manifest = `{"agent_id":"a","bernstein_version":"stepchain/0.1.0","blob_digests":[${listed.map((d) => `"${d}"`).join(',')}],"created_at":"2026-12-06T00:00:00Z","format_version":1,"head_hash":"${prev}","steps":${rows.length}}`;
  return { manifest: Buffer.from(manifest), journal: Buffer.from(lines.join('')), head: prev };
}

/**
 * Writes an unsigned receipt whose chain is one canonical row per entry of `rows` (each row's blob refs as given,
 * its `tool_result` the string `result` or null) and whose manifest lists `listed` as its blob digests: written
 * directly, as canonical JSON of small ASCII fields is, for receipts of any refs and any list (a list that is not
 * the chain's refs too). Returns the chain's head.
 */
export function writeRefReceipt(
  file: string,
  listed: readonly string[],
  rows: readonly (readonly string[])[],
  result: string | null = null,
): string {
  const { manifest, journal, head } = refReceiptParts(listed, rows, result);
  writeFileSync(
    file,
    writeTar(
      [
        { name: 'manifest.json', data: manifest },
        { name: 'journal/000000.jsonl', data: journal },
      ],
      1_700_000_000,
    ),
  );
  return head;
}
