import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { clientFiles } from '../openapi/client-files';
import { partnerApiDocument } from '../openapi/document';
import { portmanConfig } from '../openapi/portman-config';

/**
 * `npm run openapi` writes openapi/partner-api.json from the route table and the zod schemas, and
 * the TypeScript client's generated types and the Portman contract run's configuration from that
 * document; `npm run openapi -- --check` fails when a committed file is stale (run in CI).
 */
const FILE = 'openapi/partner-api.json';
const document = partnerApiDocument();
const generated: Record<string, string> = {
  [FILE]: `${JSON.stringify(document, null, 2)}\n`,
  ...(await clientFiles(document)),
  'test/contract/portman-config.json': `${JSON.stringify(portmanConfig(document), null, 2)}\n`,
};

if (process.argv.includes('--check')) {
  const stale: string[] = [];
  for (const [file, contents] of Object.entries(generated)) {
    if ((await readFile(file, 'utf8').catch(() => '')) !== contents) stale.push(file);
  }
  if (stale.length > 0) {
    console.error(
      `Out of date with the route table, the schemas or the problem catalog: ${stale.join(', ')}. Run npm run openapi and commit.`,
    );
    process.exit(1);
  }
  console.log(`${Object.keys(generated).join(', ')} are up to date.`);
} else {
  for (const [file, contents] of Object.entries(generated)) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, contents);
    console.log(`Wrote ${file}.`);
  }
}
