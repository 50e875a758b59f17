// The Vercel AI SDK's streamText over an OpenAI-compatible endpoint, summarised as one JSON
// object on stdout for tests/interop/test_vercel_ai.py.
//
//   node stream.mjs BASE_URL MODEL
//
// BASE_URL is what the provider appends "/chat/completions" to. Every part of fullStream is
// folded in; nothing is thrown for a stream error, it is reported in "errors" instead.

import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';

const [baseURL, model] = process.argv.slice(2);
if (!baseURL || !model) {
  process.stderr.write('usage: node stream.mjs BASE_URL MODEL\n');
  process.exit(2);
}

// An error as plain JSON: its name, message and, for API errors, what the server said.
function describe(error) {
  if (!(error instanceof Error)) {
    return { name: typeof error, message: String(error) };
  }
  const out = { name: error.name, message: error.message };
  for (const key of ['statusCode', 'responseBody', 'data', 'isRetryable']) {
    if (error[key] !== undefined) out[key] = error[key];
  }
  if (error.cause !== undefined) out.cause = describe(error.cause);
  return out;
}

const provider = createOpenAICompatible({ name: 'sseconform', baseURL, apiKey: 'test' });
const result = streamText({
  model: provider.chatModel(model),
  prompt: 'hi',
  maxRetries: 0, // one request per run: the loopback server answers each one the same
  onError: () => {}, // errors are reported from fullStream below, not logged
});

const summary = {
  text: '',
  reasoning: '',
  toolCalls: [],
  toolErrors: [],
  finishReason: null,
  rawFinishReason: null,
  usage: null,
  errors: [],
  parts: {},
};
for await (const part of result.fullStream) {
  summary.parts[part.type] = (summary.parts[part.type] ?? 0) + 1;
  switch (part.type) {
    case 'text-delta':
      summary.text += part.text;
      break;
    case 'reasoning-delta':
      summary.reasoning += part.text;
      break;
    case 'tool-call':
      summary.toolCalls.push({
        id: part.toolCallId,
        name: part.toolName,
        input: part.input ?? null,
        invalid: part.invalid ?? false,
      });
      break;
    case 'tool-error':
      summary.toolErrors.push({
        id: part.toolCallId,
        name: part.toolName,
        error: describe(part.error),
      });
      break;
    case 'finish':
      summary.finishReason = part.finishReason;
      summary.rawFinishReason = part.rawFinishReason ?? null;
      summary.usage = part.totalUsage ?? null;
      break;
    case 'error':
      summary.errors.push(describe(part.error));
      break;
    case 'abort':
      summary.errors.push({ name: 'abort', message: part.reason ?? '' });
      break;
    default:
      break;
  }
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
