import { readFile, writeFile } from 'node:fs/promises';
import { partnerApiDocument } from '../lib/openapi/document';

/**
 * `npm run openapi` writes openapi/partner-api.json from the route table and the zod schemas;
 * `npm run openapi -- --check` fails when the committed file is stale (run in CI).
 */
const FILE = 'openapi/partner-api.json';
const generated = `${JSON.stringify(partnerApiDocument(), null, 2)}\n`;

if (process.argv.includes('--check')) {
  const committed = await readFile(FILE, 'utf8').catch(() => '');
  if (committed !== generated) {
    console.error(
      `${FILE} is out of date with the route table or the schemas: run npm run openapi and commit it.`,
    );
    process.exit(1);
  }
  console.log(`${FILE} is up to date.`);
} else {
  await writeFile(FILE, generated);
  console.log(`Wrote ${FILE}.`);
}
