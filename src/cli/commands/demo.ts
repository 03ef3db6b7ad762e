import { runDemo } from '../demo/run';
import type { Command } from '../command';

export const demoCommand: Command = {
  name: ['demo'],
  usage: '',
  summary: 'Record a sample agent run into a temporary project and show every capability on it (npm start).',
  description:
    'It touches nothing outside its temporary directory, and ends by printing commands to walk the run yourself.',
  options: {},
  examples: [{ run: 'stepchain demo', what: 'the tour' }],
  exitCodes: { 0: 'done', 1: 'a step of the tour failed' },
  async run(_args, io, cli) {
    await runDemo((s) => process.stdout.write(s), io.env, cli);
    return 0;
  },
};
