import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
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
 * the document changes. Its inline scripts are allowed by hash, nothing else runs.
 */
export async function referenceDocs(cacheDirectory: string): Promise<ReferenceDocs> {
  const document = await readFile(DOCUMENT);
  const hash = createHash('sha256').update(document).digest('hex').slice(0, 16);
  if (!building || builtFor !== hash) {
    builtFor = hash;
    building = build(join(cacheDirectory, `partner-api-${hash}.html`));
    building.catch(() => {
      building = undefined;
    });
  }
  return building;
}

async function build(output: string): Promise<ReferenceDocs> {
  if (!existsSync(output)) {
    await mkdir(dirname(output), { recursive: true });
    const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    await promisify(execFile)(
      process.execPath,
      [cli, 'build-docs', DOCUMENT, '-o', output, '--inlineBundle', '--title', 'Partner data API reference'],
      {
        cwd: PROJECT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', SCARF_ANALYTICS: 'false', NO_UPDATE_NOTIFIER: '1' },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  }
  const html = await readFile(output, 'utf8');
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
