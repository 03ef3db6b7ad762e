/** A complete, non-streamed Anthropic Messages answer ("hello", one token each way): what scripted upstreams send. */
export const HELLO_MESSAGE = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm-test',
  content: [{ type: 'text', text: 'hello' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1, output_tokens: 1 },
});
