// The matrix's Node clients, one process for many cases (tests/interop/matrix).
//
//   node matrix.mjs < jobs.json
//
// jobs.json: {"jobs": [{"id", "client", "url", "tools": [names]}]}; "url" is the case's base
// (no /v1). One JSON line per job on stdout: {"id", "text", "calls", "finish", "rawFinish",
// "raised", "notes"}. A client that throws, or an AI SDK stream with an error part (or a
// tool-error other than the undeclared-tool one), is reported in "raised".
//
// Clients: ai-openai-compatible (chat), ai-anthropic and anthropic-sdk (Anthropic Messages),
// ai-openai-responses (OpenAI Responses), ai-google (Gemini's streamGenerateContent?alt=sse).

import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, streamText, tool } from 'ai';

const KEY = 'dummy-key-for-loopback'; // never a real key: every request goes to 127.0.0.1
const TIMEOUT_MS = 20000;

// The AI SDK's finish reasons as the matrix's (tests/interop/matrix/outcome.py).
const AI_FINISH = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
};
const ANTHROPIC_FINISH = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

// A finish part as the matrix's finish. Gemini has no finish for tool calls: its STOP ends an
// answer with calls too, and the AI SDK's Google provider names STOP with calls `tool-calls`.
// That is what the STOP meant, and the matrix reads Gemini's STOP as `stop`
// (reading.GEMINI_FINISHES), so it is `stop` here.
function finish(job, part) {
  const { finishReason: unified, rawFinishReason: raw } = part;
  if (job.client === 'ai-google' && unified === 'tool-calls' && raw === 'STOP') return 'stop';
  return AI_FINISH[unified] ?? (unified == null ? null : `other:${unified}`);
}

function raised(error) {
  if (typeof error === 'string') return error; // tool errors arrive as their message
  if (!(error instanceof Error)) return `${typeof error}: ${String(error)}`;
  return `${error.name || error.constructor?.name || 'Error'}: ${error.message}`;
}

function model(job) {
  const v1 = `${job.url}/v1`;
  switch (job.client) {
    case 'ai-openai-compatible':
      return createOpenAICompatible({ name: 'matrix', baseURL: v1, apiKey: KEY }).chatModel(
        'gpt-test',
      );
    case 'ai-anthropic':
      return createAnthropic({ baseURL: v1, apiKey: KEY })('claude-test');
    case 'ai-openai-responses':
      return createOpenAI({ baseURL: v1, apiKey: KEY }).responses('gpt-test');
    case 'ai-google':
      // POST {baseURL}/models/gemini-2.5-flash:streamGenerateContent?alt=sse
      return createGoogleGenerativeAI({ baseURL: `${job.url}/v1beta`, apiKey: KEY })(
        'gemini-2.5-flash',
      );
    default:
      throw new Error(`unknown client ${job.client}`);
  }
}

// streamText with the case's tool names declared (input: any object, no execute), so calls
// are parsed and validated as an application's would be. For ai-google the raw chunks are
// counted too: a body it read no chunk from (no `data:` event: Gemini's JSON-array framing) is
// noted, so that failure is told apart from a stream it read that left the finish out.
async function aiSdk(job) {
  const counted = job.client === 'ai-google';
  const tools = {};
  for (const name of job.tools) {
    tools[name] = tool({ inputSchema: jsonSchema({ type: 'object' }) });
  }
  const result = streamText({
    model: model(job),
    prompt: 'hi',
    tools: job.tools.length ? tools : undefined,
    maxRetries: 0,
    includeRawChunks: counted,
    abortSignal: AbortSignal.timeout(TIMEOUT_MS),
    onError: () => {},
  });
  const out = { text: '', calls: [], finish: null, rawFinish: null, raised: null, notes: [] };
  const errors = [];
  let chunks = 0;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'raw':
        chunks += 1;
        break;
      case 'text-delta':
        out.text += part.text;
        break;
      case 'tool-call':
        out.calls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input ?? null });
        if (part.invalid) out.notes.push(`call ${part.toolName} marked invalid`);
        break;
      case 'tool-error':
        if (!/NoSuchTool/.test(String(part.error?.name))) errors.push(part.error);
        break;
      case 'finish':
        out.rawFinish = part.rawFinishReason ?? part.finishReason ?? null;
        out.finish = finish(job, part);
        break;
      case 'error':
        errors.push(part.error);
        break;
      case 'abort':
        errors.push(new Error(`aborted ${part.reason ?? ''}`));
        break;
      default:
        break;
    }
  }
  if (errors.length) out.raised = raised(errors[0]);
  if (counted && chunks === 0) out.notes.push('read no chunk');
  return out;
}

// @anthropic-ai/sdk: messages.stream(...).finalMessage(), as its README shows.
async function anthropicSdk(job) {
  const client = new Anthropic({ baseURL: job.url, apiKey: KEY, maxRetries: 0, timeout: TIMEOUT_MS });
  const message = await client.messages
    .stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
    .finalMessage();
  const text = message.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const calls = message.content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: b.id, name: b.name, arguments: b.input }));
  const stop = message.stop_reason;
  return {
    text,
    calls,
    finish: ANTHROPIC_FINISH[stop] ?? (stop == null ? null : `other:${stop}`),
    rawFinish: stop,
    raised: null,
    notes: [],
  };
}

async function run(job) {
  try {
    return job.client === 'anthropic-sdk' ? await anthropicSdk(job) : await aiSdk(job);
  } catch (error) {
    return { text: null, calls: [], finish: null, rawFinish: null, raised: raised(error), notes: [] };
  }
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { jobs } = JSON.parse(input);
for (const job of jobs) {
  const out = await run(job);
  process.stdout.write(`${JSON.stringify({ id: job.id, ...out })}\n`);
}
