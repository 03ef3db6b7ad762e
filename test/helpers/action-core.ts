import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { readActionYml, RUNNER_TOKEN } from './action-repo';

/**
 * @actions/core and @actions/github's `context` replaced at their boundary, for
 * tests that call the Action's `run()` in this process (as
 * actions/typescript-action's tests do): inputs come from action.yml's defaults
 * and the test's values (as the runner sets INPUT_*), and what the Action tells
 * the runner (outputs, failure, annotations, log lines, summary) is recorded.
 * Everything below the boundary is the real library on real git repositories.
 *
 * A test file wires it with
 *   jest.mock('@actions/core', () => require('./helpers/action-core').core);
 *   jest.mock('@actions/github', () => ({ ...jest.requireActual('@actions/github'), context: require('./helpers/action-core').context }));
 */
export interface AnnotationCall {
  message: string;
  file?: string;
  startLine?: number;
  title?: string;
}

export interface CoreRecord {
  outputs: Record<string, string>;
  /** Every `setFailed` message, in order (the step failed when there is one). */
  failed: string[];
  errors: AnnotationCall[];
  warnings: AnnotationCall[];
  /** Log lines (`info`), in order. */
  log: string[];
  debug: string[];
  secrets: string[];
  summary: string;
  /** setFailed, error and warning calls in the order made (as their `::error`/`::warning` lines would be). */
  commands: { level: 'error' | 'warning'; call: AnnotationCall }[];
}

const fresh = (): CoreRecord => ({
  outputs: {},
  failed: [],
  errors: [],
  warnings: [],
  log: [],
  debug: [],
  secrets: [],
  summary: '',
  commands: [],
});

let inputs = new Map<string, string>();
let record: CoreRecord = fresh();

/** The event the Action reads (GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH, on a runner). */
export const context = {
  eventName: 'push',
  payload: {} as unknown,
  repo: { owner: 'octo', repo: 'stepchain-test' },
};

type Props = { file?: string; startLine?: number; title?: string };
const annotation = (message: unknown, props?: Props): AnnotationCall => ({
  message: message instanceof Error ? message.message : String(message),
  ...props,
});

/** core.summary: the Markdown the job summary would get. */
interface Summary {
  addRaw(text: string): Summary;
  write(): Promise<Summary>;
}
const summary: Summary = {
  addRaw(text) {
    record.summary += text;
    return summary;
  },
  write: () => Promise.resolve(summary),
};

/** The part of @actions/core the Action calls. */
export const core = {
  getInput: (name: string, options?: { trimWhitespace?: boolean }): string => {
    const v = inputs.get(name) ?? '';
    return options?.trimWhitespace === false ? v : v.trim();
  },
  setSecret: (s: string): void => void record.secrets.push(s),
  setOutput: (name: string, value: unknown): void => {
    record.outputs[name] = typeof value === 'string' ? value : JSON.stringify(value);
  },
  setFailed: (message: string | Error): void => {
    const call = annotation(message);
    record.failed.push(call.message);
    record.commands.push({ level: 'error', call });
  },
  error: (message: string | Error, props?: Props): void => {
    const call = annotation(message, props);
    record.errors.push(call);
    record.commands.push({ level: 'error', call });
  },
  warning: (message: string | Error, props?: Props): void => {
    const call = annotation(message, props);
    record.warnings.push(call);
    record.commands.push({ level: 'warning', call });
  },
  info: (line: string): void => void record.log.push(line),
  debug: (line: string): void => void record.debug.push(line),
  summary,
};

/**
 * A fresh step: the inputs (action.yml's defaults, then `given`), the event, an
 * empty record, and the runner's directories under `scratch`.
 */
export function newStep(
  workspace: string,
  scratch: string,
  given: Record<string, string> = {},
  event: { name: string; payload: unknown } = { name: 'push', payload: {} },
): CoreRecord {
  inputs = new Map();
  for (const [k, spec] of Object.entries(readActionYml().inputs))
    inputs.set(k, String(spec.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/g, RUNNER_TOKEN));
  for (const [k, v] of Object.entries(given)) inputs.set(k, v);
  context.eventName = event.name;
  context.payload = event.payload;
  record = fresh();
  const temp = path.join(scratch, `runner-temp-${Math.random().toString(36).slice(2)}`);
  mkdirSync(temp, { recursive: true });
  process.env['GITHUB_WORKSPACE'] = workspace;
  process.env['RUNNER_TEMP'] = temp;
  process.env['GITHUB_STEP_SUMMARY'] = path.join(temp, 'summary.md');
  return record;
}
