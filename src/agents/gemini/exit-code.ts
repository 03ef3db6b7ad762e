import type { JsonValue } from '../../canonical';

/**
 * The exit code of a Gemini CLI shell command, which it reports only inside the text it gives the model
 * (`tool_response.llmContent`, 0.61's `run_shell_command`):
 *
 *   <untrusted_context>\nOutput: <output>[\nError: ...][\nExit Code: N][\nSignal: S][\nBackground PIDs: ...]
 *   [\nProcess Group PGID: P]\n</untrusted_context>
 *
 * with no `Exit Code` line for 0. The output is the command's and may hold any of these lines itself, so the text is
 * read only when it lines up exactly with what Gemini CLI displayed (`returnDisplay`, the output alone): `Output: `
 * + returnDisplay, then nothing but the trailer lines. Anything else (another tool, a cancelled or backgrounded
 * command, a display that differs) is null: an exit code is never guessed.
 */
const TRAILER = /^(Error: .*|Exit Code: -?\d{1,10}|Signal: \S+|Background PIDs: [\d, ]+|Process Group PGID: \d+)$/;

export function shellExitCode(toolName: string, response: JsonValue): number | null {
  if (toolName !== 'run_shell_command' || typeof response !== 'object' || response === null) return null;
  if (Array.isArray(response) || response instanceof Map) return null;
  const r = response as Record<string, JsonValue>;
  const content = r.llmContent;
  const display = r.returnDisplay;
  if (typeof content !== 'string' || typeof display !== 'string') return null;
  let text = content;
  const open = '<untrusted_context>\n';
  const close = '\n</untrusted_context>';
  if (text.startsWith(open) && text.endsWith(close)) text = text.slice(open.length, text.length - close.length);
  const head = `Output: ${display === '' ? '(empty)' : display}`;
  if (!text.startsWith(head)) return null;
  const rest = text.slice(head.length);
  if (rest !== '' && !rest.startsWith('\n')) return null;
  const lines = rest === '' ? [] : rest.slice(1).split('\n');
  if (!lines.every((l) => TRAILER.test(l))) return null;
  const codes = lines.filter((l) => l.startsWith('Exit Code: '));
  if (codes.length > 1) return null;
  if (codes.length === 1) return Number(codes[0]!.slice('Exit Code: '.length));
  // No `Exit Code` line: 0, when the command ran to its end (a process group, no signal, no error).
  const ran = lines.some((l) => l.startsWith('Process Group PGID: '));
  const ended = !lines.some((l) => l.startsWith('Signal: ') || l.startsWith('Error: '));
  return ran && ended ? 0 : null;
}
