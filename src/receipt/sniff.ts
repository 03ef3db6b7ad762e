import { startsAsArchive } from '../util/archive-head';

const NAME = /\.(tar|tar\.gz|tgz)$/i;

/**
 * Whether a command-line target names a receipt rather than a journal: a
 * `.tar`/`.tar.gz`/`.tgz` name, or an existing file that starts as a gzip or
 * ustar archive (a journal is JSON lines).
 */
export function looksLikeReceipt(file: string): boolean {
  return NAME.test(file) || startsAsArchive(file);
}
