import type { Command } from '../command';

/**
 * Every CLI command, one module each. Keep this list sorted by concern; each
 * module is a thin layer over the library.
 */
export const commands: Command[] = [];
