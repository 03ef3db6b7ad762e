import { runDemo } from '../../demo/run';
import type { Command } from '../command';

export const demoCommand: Command = {
  name: ['demo'],
  usage: '',
  summary: 'Record a sample agent run into a temporary project and show every capability on it (npm start).',
  options: {},
  async run(_args, io) {
    await runDemo((s) => process.stdout.write(s), io.env);
    return 0;
  },
};
