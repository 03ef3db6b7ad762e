/** The producer name written into receipts (`bernstein_version`) and shown by `--version`. */
export const VERSION = '0.1.0';
export const PRODUCER = `stepchain/${VERSION}`;
