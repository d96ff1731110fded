import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { missingScopeDetail } from '../../core/domain/scopes';
import { partnerApiRoute } from '../../core/routes';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/**
 * docs/partners.md works as written: its curl and TypeScript steps are the files under
 * docs/examples/ (checked here to be the very text of the page), and each runs against the local
 * server as a partner would run it: the shell function with bash and curl, the TypeScript with tsx.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = ['docs/examples/quickstart.sh', 'docs/examples/quickstart.ts'] as const;

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function outcome(command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  const environment = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
  return run(command, args, { cwd: root, env: environment, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

/** The curl step: source the page's function, call one path. */
const curl = (path: string, env: Record<string, string>) =>
  outcome('bash', ['-c', `. docs/examples/quickstart.sh && partner_api "${path}"`], env);
/** The TypeScript step, as `npx tsx quickstart.ts [propertyId]`. */
const typescript = (env: Record<string, string>, ...args: string[]) =>
  outcome(process.execPath, ['--import', 'tsx', 'docs/examples/quickstart.ts', ...args], env);

/** The 403 detail of /properties for a key without its scope: the quickstart quotes it, naming the scope. */
const NEEDS_SCOPE = missingScopeDetail(partnerApiRoute('properties').scope);
const NEEDS_SCOPE_PATTERN = NEEDS_SCOPE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The partner's own id of its one property: characters a URL must encode, to test that the steps do. */
const PMS_HOTEL_ID = `QS/${Date.now()}&#1+%`;
let partner: TestPartner;
let metricsOnly: TestPartner;
let env: Record<string, string>;

beforeAll(async () => {
  [partner, metricsOnly] = await Promise.all([approvedPartner(), approvedPartner({ revenue: false })]);
  await sponsoredProperty(partner.id, { name: 'Quickstart Loft', pmsHotelId: PMS_HOTEL_ID });
  env = { PARTNER_API: inject('apiBaseUrl'), PARTNER_API_KEY: partner.key };
});

/** A key that has just used its 120 requests of the minute: its next answer is a 429. */
async function exhaustedKey(): Promise<string> {
  const { key } = await approvedPartner();
  await Promise.all(
    Array.from({ length: 120 }, () =>
      fetch(`${inject('apiBaseUrl')}/usage`, { headers: { Authorization: `Bearer ${key}` } }),
    ),
  );
  return key;
}

/** The key a case asks for. */
async function keyFor(change: {
  kind?: 'metrics' | 'exhausted';
  PARTNER_API_KEY?: string;
  PARTNER_API?: string;
}): Promise<string> {
  if (change.kind === 'metrics') return metricsOnly.key;
  if (change.kind === 'exhausted') return exhaustedKey();
  return change.PARTNER_API_KEY ?? partner.key;
}

describe('docs/partners.md', () => {
  it.each(examples)('shows %s exactly as the file the tests run', async (file) => {
    const page = await readFile(`${root}docs/partners.md`, 'utf8');
    const code = await readFile(`${root}${file}`, 'utf8');
    const marker = `<!-- ${file} -->`;
    const block = new RegExp(`${marker}\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1];

    expect(block, `a code block after ${marker}`).toBe(code);
  });
});

describe('the curl step (docs/examples/quickstart.sh)', () => {
  it('prints the JSON of each endpoint', async () => {
    const usage = await curl('/usage', env);
    const properties = await curl('/properties?limit=1', env);

    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject({ partner_id: partner.id, active_seats: 1 });
    expect(JSON.parse(properties.stdout).properties).toEqual([
      { id: expect.any(Number), name: 'Quickstart Loft' },
    ]);
  });

  it('finds a property by your own id (partner_property, GET /properties?pms_hotel_id=)', async () => {
    const found = await outcome(
      'bash',
      ['-c', '. docs/examples/quickstart.sh && partner_property "$1"', '_', PMS_HOTEL_ID],
      env,
    );
    const none = await outcome(
      'bash',
      ['-c', '. docs/examples/quickstart.sh && partner_property NO-SUCH'],
      env,
    );

    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout).properties).toEqual([
      { id: expect.any(Number), name: 'Quickstart Loft' },
    ]);
    expect(JSON.parse(none.stdout).properties).toEqual([]);
  });

  it.each([
    [
      '401',
      { PARTNER_API_KEY: 'svc_wrong' },
      '/usage',
      /^401: the API key is missing, mistyped, revoked or expired/,
    ],
    ['401 (empty key)', { PARTNER_API_KEY: ' ' }, '/usage', /^401: the API key is missing/],
    [
      '403',
      { kind: 'metrics' },
      '/properties',
      new RegExp(`^403: your agreement does not include this data\\. ${NEEDS_SCOPE_PATTERN}$`),
    ],
    ['404', {}, '/properties/999999999/pricing-signals', /^404: no such property for your account/],
    [
      '429',
      { kind: 'exhausted' },
      '/usage',
      /^429: rate limit reached \(120 requests a minute per key\): retry in \d+ s\.$/,
    ],
  ] as const)('answers %s with one line that says what to do', async (_, change, path, line) => {
    const result = await curl(path, { ...env, PARTNER_API_KEY: await keyFor(change) });

    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
  });

  it('stops with one line when PARTNER_API is not set', async () => {
    const result = await curl('/usage', { PARTNER_API_KEY: partner.key });

    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toMatch(
      /PARTNER_API: Set PARTNER_API to the base URL from your onboarding e-mail/,
    );
  });
});

describe('the ETag step of docs/partners.md', () => {
  it('answers 304 to the tag of the answer before, as the page shows', async () => {
    const page = await readFile(`${root}docs/partners.md`, 'utf8');
    const block = /<!-- quickstart: etag -->\n```sh\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    const directory = await mkdtemp(join(tmpdir(), 'quickstart-etag-'));
    try {
      const { stdout } = await run('bash', ['-c', block], {
        cwd: directory,
        env: { PATH: process.env.PATH, ...env },
      });

      expect(block).toContain('If-None-Match');
      expect(stdout).toBe('304\n');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('the TypeScript step (docs/examples/quickstart.ts, with the client of clients/typescript)', () => {
  it('reads usage, every property page and pricing signals', async () => {
    const result = await typescript(env);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1 active seat\n1 property\nproperty \d+: occupancy today 0\n$/);
  });

  it('finds a property by your own id of it, then reads its signals', async () => {
    const found = await typescript(env, PMS_HOTEL_ID);
    const none = await typescript(env, 'NO-SUCH');

    expect(found.stderr).toBe('');
    expect(found.stdout.split('\n').slice(2)).toEqual([
      expect.stringMatching(/^QS\/\d+&#1\+% is property \d+ \(Quickstart Loft\)$/),
      expect.stringMatching(/^property \d+: occupancy today 0$/),
      '',
    ]);
    expect(none.stdout.split('\n').slice(2)).toEqual(['NO-SUCH: not one of yours', '']);
  });

  it.each([
    ['no base URL', { PARTNER_API: '' }, [], /^The API base URL is missing: set PARTNER_API/],
    [
      '401',
      { PARTNER_API_KEY: 'svc_wrong' },
      [],
      /^401 malformed-api-key: check PARTNER_API_KEY.*\(request [0-9a-f-]{36}\)$/,
    ],
    [
      '403',
      { kind: 'metrics' },
      [],
      new RegExp(
        `^403: your agreement does not include this data\\. ${NEEDS_SCOPE_PATTERN} \\(request [0-9a-f-]{36}\\)$`,
      ),
    ],
    ['404', {}, ['999999999'], /^404: no such property for your account.*\(request [0-9a-f-]{36}\)$/],
    ['429', { kind: 'exhausted' }, [], /^429: rate limit reached; retry in \d+ s$/],
    [
      'a base URL without the API path',
      { PARTNER_API: inject('apiBaseUrl').replace(/\/partner-api\/v1$/, '') },
      [],
      /^404 There is no such resource\. Live routes: GET \/partner-api\/v1\/usage.*; PARTNER_API should end in \/partner-api\/v1 \(request [0-9a-f-]{36}\)$/,
    ],
    [
      'a server that is not there',
      { PARTNER_API: 'http://127.0.0.1:59999/partner-api/v1' },
      [],
      /^cannot reach PARTNER_API \(.+\): check the address and your network$/,
    ],
  ] as const)('answers %s with one clear line', async (_, change, args, line) => {
    const key = await keyFor(change);
    const base = 'PARTNER_API' in change ? change.PARTNER_API : env.PARTNER_API;

    const result = await typescript({ PARTNER_API: base ?? '', PARTNER_API_KEY: key }, ...args);

    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
  });
});
