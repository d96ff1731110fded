import { readFile, writeFile } from 'node:fs/promises';
import { Parser } from '@asyncapi/parser';
import { eventsDocument } from '../asyncapi/document';
import { eventExamplesFile } from '../asyncapi/examples';

/**
 * `npm run asyncapi` writes asyncapi/platform-events.json (the contract of the events between the
 * platform and this service, both directions, from the zod schemas each side is checked with) and
 * docs/examples/events.jsonl (one example of each of the platform's events, for `events publish`);
 * `npm run asyncapi -- --check` fails when either is stale, or when AsyncAPI's own parser finds the
 * document invalid (run by `npm run check`).
 */
const FILES: Record<string, string> = {
  'asyncapi/platform-events.json': `${JSON.stringify(eventsDocument(), null, 2)}\n`,
  'docs/examples/events.jsonl': eventExamplesFile(),
};

const { diagnostics } = await new Parser().parse(FILES['asyncapi/platform-events.json'] ?? '');
// Severity 0 is an error, 1 a warning: both fail, so the document stays clean for partners' tools.
const problems = diagnostics.filter((diagnostic) => diagnostic.severity <= 1);
if (problems.length > 0) {
  for (const problem of problems) console.error(`${problem.path.join('.')}: ${problem.message}`);
  console.error(`The generated AsyncAPI document has ${problems.length} problem(s).`);
  process.exit(1);
}

if (process.argv.includes('--check')) {
  const stale: string[] = [];
  for (const [file, contents] of Object.entries(FILES))
    if ((await readFile(file, 'utf8').catch(() => '')) !== contents) stale.push(file);
  if (stale.length > 0) {
    console.error(
      `Out of date with the event schemas: ${stale.join(', ')}. Run npm run asyncapi and commit.`,
    );
    process.exit(1);
  }
  console.log(`${Object.keys(FILES).join(', ')} are up to date, and valid AsyncAPI 3.0.`);
} else {
  for (const [file, contents] of Object.entries(FILES)) {
    await writeFile(file, contents);
    console.log(`Wrote ${file}.`);
  }
}
