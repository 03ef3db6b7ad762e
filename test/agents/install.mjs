#!/usr/bin/env node
// The coding agents the tests run for real (docs/agents.md), at the exact versions of versions.json. They are test
// tools, not dependencies of the package: each is installed once into a cache outside the project
// ($STEPCHAIN_AGENT_CACHE, else $XDG_CACHE_HOME/stepchain-test-agents, else ~/.cache/stepchain-test-agents),
// one folder per package and version, so `npm ci` stays light and a second run installs nothing.
//
//   node test/agents/install.mjs [name ...]    installs the named agents (default: all), prints where they are
//
// The test sequencer runs it before any test file that uses test/helpers/agents.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const AGENT_VERSIONS = JSON.parse(readFileSync(path.join(here, 'versions.json'), 'utf8'));

export function agentCacheDir(env = process.env) {
  if (env.STEPCHAIN_AGENT_CACHE) return path.resolve(env.STEPCHAIN_AGENT_CACHE);
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(base, 'stepchain-test-agents');
}

function folderOf(name, env) {
  const a = AGENT_VERSIONS[name];
  if (a === undefined) throw new Error(`no agent named ${JSON.stringify(name)} in test/agents/versions.json`);
  return path.join(agentCacheDir(env), `${a.package.replace(/[@/]/g, '_')}-${a.version}`);
}

/** The agent's executable, or an Error saying why there is none. */
export function agentBinaryPath(name, env = process.env) {
  const dir = folderOf(name, env);
  const bin = path.join(dir, 'node_modules', '.bin', AGENT_VERSIONS[name].bin);
  if (!existsSync(path.join(dir, '.complete')) || !existsSync(bin))
    return new Error(`${name} is not installed in ${dir}: run \`node test/agents/install.mjs ${name}\``);
  return bin;
}

/** Installs `name` when it is not there yet (into a temporary folder renamed into place: never half installed). */
export function installAgent(name, env = process.env) {
  const dir = folderOf(name, env);
  if (existsSync(path.join(dir, '.complete'))) return dir;
  const a = AGENT_VERSIONS[name];
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(path.join(tmp, 'package.json'), '{"private":true}\n');
  const started = Date.now();
  const r = spawnSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `${a.package}@${a.version}`],
    {
      cwd: tmp,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      env: { ...env, npm_config_package_lock: 'false' },
    },
  );
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `npm install ${a.package}@${a.version} failed (exit ${r.status}): ${(r.stderr ?? '').trim().split('\n').pop()}`,
    );
  }
  writeFileSync(path.join(tmp, '.complete'), `${a.package}@${a.version}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  process.stderr.write(
    `test agents: installed ${a.package}@${a.version} in ${dir} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
  );
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(AGENT_VERSIONS);
  let failed = 0;
  for (const name of names) {
    try {
      console.log(`${name}: ${installAgent(name)}`);
    } catch (e) {
      failed++;
      console.error(`test agents: ${name}: ${e.message}`);
    }
  }
  process.exit(failed > 0 ? 1 : 0);
}
