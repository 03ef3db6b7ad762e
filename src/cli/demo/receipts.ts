import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTar, writeTar } from '../../receipt';
import type { DemoContext } from './context';
import { SAMPLE_AGENT } from './sample';

/** Flips one byte of the journal member inside a copy of a receipt (re-packing it as a valid tar). */
function tamperedCopy(receipt: string, out: string): void {
  const entries = readTar(readFileSync(receipt));
  const members = entries.map((e) => ({ name: e.name, data: Buffer.from(e.data) }));
  const journal = members.find((m) => m.name === 'journal/000000.jsonl')!;
  const at = journal.data.indexOf('"prompt":"') + '"prompt":"'.length;
  journal.data[at] = journal.data[at]! ^ 0x01;
  writeFileSync(out, writeTar(members, Math.floor(Date.now() / 1000)));
}

/** Receipts: keygen, signed export, offline verify, redacted publish, and a tampered receipt failing. */
export async function demoReceipts(ctx: DemoContext): Promise<void> {
  // Keys and receipts live in an untracked scratch directory of the demo project.
  const dir = path.join(ctx.root, '.sdd', 'demo-receipts');
  mkdirSync(dir, { recursive: true });
  const rel = (f: string): string => path.relative(ctx.root, path.join(dir, f));

  ctx.section('Receipts: a signing key');
  await ctx.run(['keygen', '-o', rel('signing.pem'), '--public', rel('verify.pem')]);

  ctx.section('Export a signed, portable receipt (the journal is verified first)');
  const exported = await ctx.run([
    'export',
    SAMPLE_AGENT,
    '-o',
    rel('run.receipt.tar'),
    '--sign-key',
    rel('signing.pem'),
  ]);
  // The sections below read this receipt: a failed export stops the demo with its own words, not a missing file.
  if (exported.code !== 0)
    throw new Error(`the demo's export failed (exit ${exported.code}): ${exported.stderr.trim()}`);

  ctx.section('Verify it offline, anywhere: nothing is extracted to disk');
  await ctx.run(['receipt', 'verify', rel('run.receipt.tar'), '--public-key', rel('verify.pem'), '--require-blobs']);

  ctx.section('Publish with privacy redaction (opt-in; prompts and tool results become <<redacted>>)');
  await ctx.run(['publish', SAMPLE_AGENT, '-o', rel('published.receipt.tar')]);
  await ctx.run([
    'publish',
    SAMPLE_AGENT,
    '-o',
    rel('published.receipt.tar'),
    '--opt-in',
    '--sign-key',
    rel('signing.pem'),
  ]);
  await ctx.run(['receipt', 'verify', rel('published.receipt.tar'), '--public-key', rel('verify.pem')]);

  ctx.section('A tampered receipt: one byte of one prompt flipped in a copy');
  tamperedCopy(path.join(dir, 'run.receipt.tar'), path.join(dir, 'tampered.receipt.tar'));
  ctx.say('The copy\'s first prompt now starts "Uhe test suite..."; the manifest and its signature are untouched,');
  ctx.say('but the chain no longer recomputes to the signed head:');
  await ctx.run(['receipt', 'verify', rel('tampered.receipt.tar'), '--public-key', rel('verify.pem')]);

  ctx.epilogue.push(
    `stepchain receipt verify ${rel('run.receipt.tar')} --public-key ${rel('verify.pem')} --json   # a signed receipt`,
  );
}
