import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCUMENT = join(PROJECT, 'openapi', 'partner-api.json');

export interface ReferenceDocs {
  readonly html: string;
  readonly headers: Record<string, string>;
}

let building: Promise<ReferenceDocs> | undefined;
let builtFor = '';

/**
 * The API reference as one static HTML page, built offline from openapi/partner-api.json with
 * `redocly build-docs --inlineBundle` (no CDN) the first time it is asked for, and again when
 * the document changes. Its contact is `contactEmail`, how partners reach us on this server (as
 * the deployed `/openapi.json` names the stage's). Its inline scripts are allowed by hash,
 * nothing else runs.
 */
export async function referenceDocs(cacheDirectory: string, contactEmail: string): Promise<ReferenceDocs> {
  const parsed = JSON.parse(await readFile(DOCUMENT, 'utf8')) as {
    info: { contact?: Record<string, string> };
  };
  const document = JSON.stringify({
    ...parsed,
    info: { ...parsed.info, contact: { ...parsed.info.contact, email: contactEmail } },
  });
  const hash = createHash('sha256').update(document).digest('hex').slice(0, 16);
  if (!building || builtFor !== hash) {
    builtFor = hash;
    const source = join(cacheDirectory, `partner-api-${hash}.json`);
    building = mkdir(cacheDirectory, { recursive: true })
      .then(() => writeFile(source, document))
      .then(() => build(source, join(cacheDirectory, `partner-api-${hash}.html`)));
    building.catch(() => {
      building = undefined;
    });
  }
  return building;
}

/**
 * Redoc's sidebar credits Redocly with a logo from its CDN, which the page's own policy refuses
 * (`img-src 'self' data:`: the page loads nothing from elsewhere). The credit stays, drawn here: the
 * two addresses become one small SVG of the name, inline.
 */
const REDOCLY_MARK =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='56' height='14'%3E%3Ctext x='0' y='11' font-family='sans-serif' font-size='11' font-weight='600' fill='%23555'%3ERedocly%3C/text%3E%3C/svg%3E";
const withLocalAttribution = (html: string) =>
  html.replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, REDOCLY_MARK);

async function build(source: string, output: string): Promise<ReferenceDocs> {
  if (!existsSync(output)) {
    await mkdir(dirname(output), { recursive: true });
    const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    await promisify(execFile)(
      process.execPath,
      [cli, 'build-docs', source, '-o', output, '--inlineBundle', '--title', 'Partner data API reference'],
      {
        cwd: PROJECT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', SCARF_ANALYTICS: 'false', NO_UPDATE_NOTIFIER: '1' },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  }
  const html = withLocalAttribution(await readFile(output, 'utf8'));
  const scriptHashes = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
  );
  return {
    html,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': [
        "default-src 'none'",
        `script-src ${scriptHashes.join(' ')}`,
        // Redoc's styled-components write style elements at run time.
        "style-src 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
      ].join('; '),
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    },
  };
}
