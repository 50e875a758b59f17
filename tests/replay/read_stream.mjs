// One streamed response read with Node's built-in fetch (undici, what Portkey, the Vercel AI
// SDK and most JS gateways use), summarised as one JSON line on stdout for
// tests/replay/test_drop_clients.py:
//
//   node read_stream.mjs URL HEADERS_JSON
//
// {"status": 200, "bytes": N, "sha": "...", "error": null | {"name", "message", "cause"}}:
// what the caller saw. A dropped stream must end in an error here, never in a clean `done`.

import { createHash } from 'node:crypto';

const [url, headersJson] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: node read_stream.mjs URL [HEADERS_JSON]\n');
  process.exit(2);
}
const headers = { 'content-type': 'application/json', ...JSON.parse(headersJson || '{}') };

// An error as plain JSON: its name, message and the code or message of its cause.
function describe(error) {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error), cause: null };
  const cause = error.cause;
  return {
    name: error.name,
    message: error.message,
    cause: cause ? String(cause.code || cause.message || cause) : null,
  };
}

const out = { status: null, bytes: 0, sha: null, error: null };
const hash = createHash('sha256');
try {
  const response = await fetch(url, { method: 'POST', headers, body: '{"stream": true}' });
  out.status = response.status;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.bytes += value.length;
    hash.update(value);
  }
} catch (error) {
  out.error = describe(error);
}
out.sha = hash.digest('hex');
process.stdout.write(JSON.stringify(out) + '\n');
