/**
 * Guide: the HTTP API (docs/api.md). A queue consumer in another process that starts runs over HTTP with
 * the typed client: one run per message, named by the message's id, so a message delivered twice is one
 * run. It follows each run until it finishes or waits for a person, and prints one JSON line per message.
 * Messages are JSON lines on stdin ({ "id": "...", "prompt": "..." }); GNL_API_URL and GNL_API_TOKEN say
 * where and as whom. lib/server/serve.test.ts runs it against a real `gnl serve`.
 * The guide's code block is the #region part of this file (docs/examples/code-blocks.test.ts).
 */
import { createInterface } from 'node:readline';
import { createGnlClient } from '@gnldev/durable';

// #region worker
const gnl = createGnlClient({
  baseUrl: process.env.GNL_API_URL ?? 'http://127.0.0.1:3000',
  token: process.env.GNL_API_TOKEN ?? '',
});

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const message = JSON.parse(line) as { id: string; prompt: string };
  // The message's id names the run: a redelivered message is the same run, never a second refund.
  const { run, created } = await gnl.start({
    agent: 'support',
    runId: `support:msg-${message.id}`,
    input: { prompt: message.prompt },
  });
  let last = run;
  for await (const update of gnl.follow(run.runId, { until: (r) => r.status !== 'running' })) {
    if (update.type === 'run') last = update.run;
  }
  console.log(
    JSON.stringify({
      id: message.id,
      runId: run.runId,
      created,
      status: last.status,
      pending: last.pending,
    }),
  );
}
// #endregion
