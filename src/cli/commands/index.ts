import type { Command } from '../command';
import { appendCommand } from './append';
import { demoCommand } from './demo';
import { exportCommand } from './export';
import { keygenCommand } from './keygen';
import { publishCommand } from './publish';
import { receiptVerifyCommand } from './receipt-verify';
import { verifyCommand } from './verify';

/**
 * Every CLI command, one module each, each a thin layer over the library.
 * Add a command by importing it here.
 */
export const commands: Command[] = [
  appendCommand,
  verifyCommand,
  keygenCommand,
  exportCommand,
  receiptVerifyCommand,
  publishCommand,
  demoCommand,
];
