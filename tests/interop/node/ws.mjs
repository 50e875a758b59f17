// The openai JS SDK's WebSocket mode (ResponsesWS) for tests/interop/test_websocket_rules.py:
// what it does with a server's bytes, summarised as one JSON line on stdout.
//
//   node ws.mjs WS_URL TURNS DEADLINE_MS [--no-error-listener]
//
// WS_URL is the SDK's base URL (ws://127.0.0.1:PORT/v1; it appends /responses). TURNS
// response.create events are sent, each after the previous turn's terminal event. Nothing is
// thrown: every event's type, every error the SDK emits, raw (unparsed) messages and the close
// are reported. The run ends when the socket closes, shortly after the last turn's terminal
// event (the client then closes with 1000), or at DEADLINE_MS (timedOut: the SDK was still
// waiting), so it never hangs. With --no-error-listener no `error` listener is bound, as in an
// app that binds none: an error the SDK emits then ends the process (exitCode, stderr), and
// the summary is still written.

import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';

const [url, turnsArg, deadlineArg, flag] = process.argv.slice(2);
const listenForErrors = flag !== '--no-error-listener';
const turns = Number(turnsArg ?? '1');
const deadline = Number(deadlineArg ?? '5000');
if (!url || !(turns >= 1) || !(deadline > 0) || (flag && listenForErrors)) {
  process.stderr.write('usage: node ws.mjs WS_URL TURNS DEADLINE_MS [--no-error-listener]\n');
  process.exit(2);
}

// How long to keep reading after the last terminal event: anything the server wrote with the
// turn (a stray event, its Close) has arrived by then on loopback.
const SETTLE_MS = 200;
const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

const summary = {
  events: [], errors: [], raw: [], close: null, closedByClient: false, sent: 0, timedOut: false,
  trace: [], // everything above, in the order it happened
  exitCode: 0, // not 0: the process ended on its own (an unhandled rejection)
};
let finished = false;

function finish() {
  if (finished) return;
  finished = true;
  process.stdout.write(JSON.stringify(summary) + '\n');
  process.exit(0);
}

// A process that dies of an error nobody listened for still says what it saw.
process.on('exit', (code) => {
  if (finished) return;
  finished = true;
  summary.exitCode = code;
  process.stdout.write(JSON.stringify(summary) + '\n');
});

// An emitted error as plain JSON: its message, and the server's error event when it carried one.
function describe(error) {
  const out = { name: error?.name ?? typeof error, message: String(error?.message ?? error) };
  if (error?.error !== undefined) out.event = error.error;
  if (error?.cause !== undefined) out.cause = String(error.cause?.message ?? error.cause);
  return out;
}

const client = new OpenAI({ apiKey: 'sk-test', baseURL: url, maxRetries: 0 });
const rws = new ResponsesWS(client); // the defaults: no reconnect unless asked for
let previous = null;

function create() {
  const body = { type: 'response.create', model: 'gpt-test', input: summary.sent ? 'again' : 'hi' };
  if (previous) body.previous_response_id = previous;
  summary.sent += 1;
  summary.trace.push('send');
  try {
    rws.send(body);
  } catch (error) {
    summary.errors.push({ thrown: true, ...describe(error) });
  }
}

rws.on('event', (event) => {
  summary.events.push(event.type);
  summary.trace.push(event.type);
  if (event.type === 'response.completed') previous = event.response?.id ?? previous;
  if (!TERMINAL.has(event.type)) return;
  if (summary.sent < turns) create();
  else if (summary.events.filter((t) => TERMINAL.has(t)).length >= turns) {
    setTimeout(() => {
      if (summary.close) return; // the server closed first: its code stands
      summary.closedByClient = true;
      summary.trace.push('client close');
      rws.close({ code: 1000, reason: 'done' });
    }, SETTLE_MS);
  }
});
rws.on('raw', (data) => {
  summary.raw.push(String(data).slice(0, 80));
  summary.trace.push('raw');
});
if (listenForErrors) {
  rws.on('error', (error) => {
    summary.errors.push(describe(error));
    summary.trace.push(`error: ${error?.message ?? error}`);
  });
}
rws.on('close', (code, reason, unsent) => {
  summary.close = { code, reason: String(reason), unsent: unsent?.length ?? 0 };
  summary.trace.push(`close ${code}`);
  setTimeout(finish, 50); // an error emitted with the close is reported too
});

setTimeout(() => {
  summary.timedOut = true;
  finish();
}, deadline);

create(); // queued until the socket is open
