import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Tears a file's last line as a writer's first write of it leaves it: only its first `keep` characters are there, no
 * newline yet. Returns what the writer still holds (appended later, the line is whole again).
 */
export function tearLastLine(file: string, keep: number): string {
  const text = readFileSync(file, 'utf8');
  const last = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
  writeFileSync(file, text.slice(0, text.length - last.length));
  appendFileSync(file, last.slice(0, keep));
  return last.slice(keep);
}
