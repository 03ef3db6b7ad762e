import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { copilotCommand, copilotEnv } from './helpers/copilot';
import { openCodeCommand, openCodeEnv } from './helpers/opencode';
import { expectChatAgentLinked, linkProject, MAKE } from './helpers/record-links';
import { tempDir } from './helpers/tmp';

// The Chat Completions agents' real binaries (Copilot CLI, OpenCode) with their stepchain hooks installed AND run
// under `stepchain record` against a scripted server: every hook step that is a tool call is linked to the exchange
// whose response asked for that call, and replay and show display it (Codex and Gemini CLI:
// record.links-agents.test.ts). How each agent's requests name their hook session: docs/record.md.
jest.setTimeout(400_000);

const dir = tempDir('stepchain-record-links-chat-');
const project = (name: string) => linkProject(dir, name);

describe('Copilot CLI (1.0.102): the session folder in its system message', () => {
  const p = project('copilot');

  test('every hook step is linked to the exchange that asked for its call id', async () => {
    mkdirSync(path.join(p.home, '.copilot'), { recursive: true });
    // Copilot runs a folder's hooks only once it is trusted.
    writeFileSync(path.join(p.home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [p.root] }));
    await expectChatAgentLinked(p, 'copilot', {
      final: 'Done.',
      env: copilotEnv,
      command: copilotCommand({ prompt: MAKE }),
    });
  });
});

describe('OpenCode (1.18.33): the x-session-id header', () => {
  const p = project('opencode');

  test('every hook step is linked to the exchange that asked for its call id', async () => {
    await expectChatAgentLinked(p, 'opencode', {
      final: 'All done.',
      model: 'scripted-model',
      env: openCodeEnv,
      command: openCodeCommand(MAKE),
    });
  });
});
