import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentBinary, agentPath, runAgentProcess, type AgentRun, type ScriptedRunOptions } from './agents';

export type OpenCodeRun = AgentRun;

export type OpenCodeOptions = ScriptedRunOptions;

/**
 * The configuration and environment a headless OpenCode run gets: its own HOME and XDG folders, the provider in
 * its global config (so the project holds nothing but what `init` wrote), models.dev, updates, sharing, default
 * plugins and LSP downloads off. OpenCode installs `@opencode-ai/plugin` in each config folder (its global one and
 * the project's .opencode) in the background at every start: npm is given a registry on a closed port of
 * 127.0.0.1 and told not to retry, so the install fails at once, offline (OpenCode logs "background dependency
 * install failed" and goes on). Where the machine is online, the install otherwise fetched some twenty packages'
 * metadata from the public registry in every run (about 2 s of CPU of the ~10 a run takes here), and offline it
 * would wait ~70 s on retries. Writes the global config; returns the environment.
 */
export function openCodeEnv(options: OpenCodeOptions): NodeJS.ProcessEnv {
  const model = options.model ?? 'scripted-model';
  const config = path.join(options.home, '.config');
  mkdirSync(path.join(config, 'opencode'), { recursive: true });
  writeFileSync(
    path.join(config, 'opencode', 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      model: `local/${model}`,
      autoupdate: false,
      share: 'disabled',
      // OpenCode's snapshots ("Enable or disable snapshot tracking", its config schema: what its undo/revert of file
      // changes restores). On, every run spent ~85 git processes on them (a git database of its own under
      // XDG_DATA_HOME: init, eight `config`, then add, write-tree and diff before and after each step); nothing here
      // reads them (stepchain records from its own proxy and plugin; no request carries them). Off by default:
      // measured ~3 s less CPU per run of a title and three turns (13.4-17.0 s -> 9.9-13.6 s, the run's process
      // tree, three runs each, host loaded). (With them off OpenCode exits sooner after its session goes idle: the
      // race the plugin's exit record closes, src/agents/opencode/plugin.ts; opencode.session checks that stop.)
      snapshot: false,
      provider: {
        local: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Local',
          options: { baseURL: options.baseUrl, apiKey: 'sk-local-scripted' },
          models: { [model]: { name: 'Scripted' } },
        },
      },
    }),
  );
  return {
    PATH: agentPath(options.binDir),
    HOME: options.home,
    // OpenCode takes its directory from $PWD.
    PWD: options.cwd,
    XDG_CONFIG_HOME: config,
    XDG_DATA_HOME: path.join(options.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(options.home, '.cache'),
    XDG_STATE_HOME: path.join(options.home, '.local', 'state'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_fetch_retries: '0',
    ...options.env,
  };
}

/** `opencode run --format json <words...>` (the binary first). */
export function openCodeCommand(prompt: string): string[] {
  return [agentBinary('opencode'), 'run', '--format', 'json', ...prompt.split(' ')];
}

/** Runs the pinned OpenCode, `opencode run --format json <words...>`, against a scripted Chat Completions server on 127.0.0.1, offline. */
export function runOpenCode(options: OpenCodeOptions): Promise<OpenCodeRun> {
  const [binary, ...args] = openCodeCommand(options.prompt);
  return runAgentProcess(binary!, args, {
    cwd: options.cwd,
    env: openCodeEnv(options),
    timeoutMs: options.timeoutMs ?? 300_000,
  });
}
