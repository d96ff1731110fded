import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../../cli/cli';
import { isOneLine } from '../../core/domain/text';
import { admin } from '../support/cli';
import { apiGet, approvedPartner, revealKey } from '../support/partners';

/** A partner's keys as `keys list --json` shows them, by prefix. */
async function keysOf(slug: string): Promise<Map<string, Record<string, string | null>>> {
  const listed = JSON.parse((await admin('keys', 'list', '--partner', slug, '--json')).stdout) as {
    keys: Record<string, string | null>[];
  };
  return new Map(listed.keys.map((key) => [String(key.key_prefix), key]));
}

/** Polls until the API answers `status` for a key, returning the seconds it took. */
async function secondsUntil(key: string, status: number, limitSeconds: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if ((await apiGet('/usage', key)).status === status) return (Date.now() - started) / 1000;
    if (Date.now() - started > limitSeconds * 1000) throw new Error(`No ${status} within ${limitSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('operator CLI as a real process', () => {
  it('approves a partner whose revealed key works, writes the e-mail to the outbox, and never prints the key', async () => {
    const run = promisify(execFile);
    const slug = `cli-${Date.now().toString(36)}`;

    const { stdout, stderr } = await run(
      'npx',
      [
        'tsx',
        'bin/admin.ts',
        'partners',
        'approve',
        '--name',
        'CLI PMS',
        '--slug',
        slug,
        '--email',
        'ops@cli.example',
        '--products',
        'assistant,checkin',
        '--json',
      ],
      { env: { ...process.env, PARTNER_API_LOCAL_DIR: inject('localDirectory') } },
    );
    const result = JSON.parse(stdout) as Record<string, string>;
    const key = await revealKey(result.reveal_url ?? '');

    expect(Object.keys(result).sort()).toEqual([
      'key_prefix',
      'partner_id',
      'reveal_expires_at',
      'reveal_url',
      'slug',
    ]);
    expect(key.startsWith(result.key_prefix ?? '-')).toBe(true);
    expect(stdout + stderr).not.toContain(key);
    expect((await apiGet('/usage', key)).status).toBe(200);
    expect((await apiGet('/properties', key)).status).toBe(403);
    const outbox = join(inject('localDirectory'), 'outbox');
    const mails = await Promise.all(
      (await readdir(outbox)).map((file) => readFile(join(outbox, file), 'utf8')),
    );
    const mail = mails.find((text) => text.includes(result.reveal_url ?? '-'));
    expect(mail).toContain('To: ops@cli.example');
    expect(mail).toContain(`API base URL: ${inject('apiBaseUrl')}`);
    // The link's own end, in words a reader in any zone reads the same.
    const expires = new Date(result.reveal_expires_at ?? '').toUTCString().replace(/:\d\d GMT$/, '');
    expect(mail).toContain(`The link works until ${expires} UTC.`);
    expect(stderr).toContain('local outbox:');
  });

  it('leaves no key in the local runtime file', async () => {
    const folder = join(inject('localDirectory'), 'runtime');
    const files = await readdir(folder);
    // The suite's one server, in its own file.
    expect(files).toEqual([expect.stringMatching(/^[1-9][0-9]*\.json$/)]);
    const runtime = (await Promise.all(files.map((name) => readFile(join(folder, name), 'utf8')))).join('\n');
    expect(runtime).toContain('"apiBaseUrl"');

    expect(runtime).not.toMatch(/svc_[0-9A-Za-z]{46}/);
    expect(runtime).not.toContain(inject('demoKey'));
  });

  it('exits non-zero with a message that says what to fix', async () => {
    const taken = await admin(
      'partners',
      'approve',
      '--name',
      'Dup',
      '--slug',
      'demo-pms',
      '--email',
      'a@b.example',
      '--products',
      'assistant',
    );
    const badProducts = await admin(
      'partners',
      'approve',
      '--name',
      'X',
      '--slug',
      'x-pms',
      '--email',
      'a@b.example',
      '--products',
      'assistant,wifi',
    );
    const missing = await admin('keys', 'rotate');
    const unknownOption = await admin('keys', 'list', '--partner', 'demo-pms', '--colour');

    expect(taken).toMatchObject({ code: 1, stdout: '' });
    expect(taken.stderr).toContain('slug "demo-pms" is taken');
    expect(badProducts.code).toBe(1);
    expect(badProducts.stderr).toContain('Unknown product(s): wifi');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--partner <slug>' not specified");
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--colour'");
  });

  it('takes the global options before or after the command, and has help for each command', async () => {
    const before = await admin('--stage', 'local', '--json', 'partners', 'list');
    const after = await admin('partners', 'list', '--stage', 'local', '--json');
    const help = await admin('keys', 'rotate', '--help');
    const badStage = await admin('--stage', 'staging', 'partners', 'list');

    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--grace-hours <hours>');
    expect(help.stdout).toContain('--no-mail');
    expect(badStage.code).toBe(2);
    expect(badStage.stderr).toContain('Allowed choices are local, sandbox, production');
  });

  it('never writes a stored control or bidi character raw: escaped in JSON, replaced in text', async () => {
    const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamoDb } = await import('../../lambdas/data/db');
    const { partnerCreationItems } = await import('../../lambdas/data/partners');
    const { uniqueSlug } = await import('../support/partners');
    const slug = uniqueSlug('bidi');
    const name = 'Evil\u202eSMP\u0085\u001b[2J';
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: partnerCreationItems(
          {
            id: 800_000 + Math.floor(Math.random() * 99_999),
            slug,
            name,
            contactEmail: 'e@bidi.example',
            products: ['assistant'],
            scopes: ['metrics:read'],
            revision: 0,
            keyPrefixes: [],
            createdAt: new Date().toISOString(),
          },
          'sealed',
        ),
      }),
    );

    const json = await admin('partners', 'show', slug, '--json');
    const text = await admin('partners', 'show', slug);

    for (const output of [json.stdout, text.stdout])
      expect(output.split('\n').filter((line) => !isOneLine(line))).toEqual([]);
    expect(json.stdout).toContain('Evil\\u202eSMP\\u0085\\u001b[2J');
    expect(JSON.parse(json.stdout).name).toBe(name);
    expect(text.stdout).toContain('Evil?SMP??[2J');
  });

  it('lists partners and keys as one JSON object each', async () => {
    const partners = JSON.parse((await admin('partners', 'list', '--json')).stdout) as {
      partners: { slug: string }[];
    };
    const keys = JSON.parse((await admin('keys', 'list', '--partner', 'demo-pms', '--json')).stdout) as {
      keys: { state: string }[];
    };

    expect(partners.partners.map((p) => p.slug)).toContain('demo-pms');
    expect(keys.keys.some((key) => key.state === 'active')).toBe(true);
  });
});

// The three tests that wait out the authorizer's cache (up to 30 s each) run side by side: each has
// a partner of its own.
describe('rotation and revocation', () => {
  it('rotation: both keys work until the grace period after the new key is revealed, never with wider scopes', async () => {
    const partner = await approvedPartner({ revenue: false });

    const rotated = await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', '2', '--json');
    const result = JSON.parse(rotated.stdout) as {
      reveal_url: string;
      retiring: string[];
      superseded: string[];
    };
    const listedBefore = await keysOf(partner.slug);
    const newKey = await revealKey(result.reveal_url);
    const listedAfter = await keysOf(partner.slug);

    expect(result).toMatchObject({ retiring: [partner.keyPrefix], superseded: [] });
    // Until the new key is revealed, the old one has no end: the partner always holds a working key.
    expect(listedBefore.get(partner.keyPrefix)).toMatchObject({ state: 'active', expires_at: null });
    expect(Date.parse(listedAfter.get(partner.keyPrefix)?.expires_at ?? '') - Date.now()).toBeGreaterThan(
      7_100_000,
    );
    expect((await apiGet('/usage', partner.key)).status).toBe(200);
    expect((await apiGet('/usage', newKey)).status).toBe(200);
    expect((await apiGet('/properties', newKey)).status).toBe(403);
  });

  it.concurrent('a retried rotation never leaves the partner without a working key', async () => {
    const partner = await approvedPartner();

    // The first rotation's link is lost (say its e-mail never arrived); the operator rotates again.
    const first = JSON.parse(
      (await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', '0', '--no-mail', '--json'))
        .stdout,
    ) as { key_prefix: string };
    const second = JSON.parse(
      (await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', '0', '--no-mail', '--json'))
        .stdout,
    ) as { key_prefix: string; reveal_url: string; retiring: string[]; superseded: string[] };
    const stillWorking = await apiGet('/usage', partner.key);
    const newKey = await revealKey(second.reveal_url);

    expect(second).toMatchObject({ retiring: [partner.keyPrefix], superseded: [first.key_prefix] });
    expect(stillWorking.status).toBe(200);
    expect((await keysOf(partner.slug)).get(first.key_prefix)?.state).toBe('superseded');
    expect((await apiGet('/usage', newKey)).status).toBe(200);
    expect(await secondsUntil(partner.key, 401, 30)).toBeLessThanOrEqual(30);
  });

  it.concurrent('rotation with no grace: the old key expires (401 expired) within 30 s of the new key being revealed', async () => {
    const partner = await approvedPartner();
    await apiGet('/usage', partner.key);

    const rotated = JSON.parse(
      (await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', '0', '--json')).stdout,
    ) as Record<string, string>;
    const newKey = await revealKey(rotated.reveal_url ?? '');

    expect(await secondsUntil(partner.key, 401, 30)).toBeLessThanOrEqual(30);
    expect((await apiGet('/usage', partner.key)).json.type).toContain('expired-api-key');
    expect((await apiGet('/usage', newKey)).status).toBe(200);
  });

  it.concurrent('revocation takes effect within 30 s, even for a key the authorizer has cached', async () => {
    const partner = await approvedPartner();
    expect((await apiGet('/usage', partner.key)).status).toBe(200);

    const revoked = await admin('keys', 'revoke', '--prefix', partner.keyPrefix, '--json');

    expect(JSON.parse(revoked.stdout)).toMatchObject({
      key_prefix: partner.keyPrefix,
      revoked_at: expect.any(String),
    });
    expect(await secondsUntil(partner.key, 401, 30)).toBeLessThanOrEqual(30);
    expect((await apiGet('/usage', partner.key)).json.type).toContain('revoked-api-key');
    const listed = JSON.parse((await admin('keys', 'list', '--partner', partner.slug, '--json')).stdout) as {
      keys: Record<string, string>[];
    };
    expect(listed.keys[0]).toMatchObject({
      key_prefix: partner.keyPrefix,
      state: 'revoked',
      last_used_at: expect.any(String),
    });
  });

  it('prints the reveal link before mailing it, and a mail failure is a warning that says how to resend', async () => {
    const { testTarget, uniqueSlug } = await import('../support/partners');
    const events: string[] = [];
    const failingMail = {
      ...testTarget(),
      mailer: {
        async send(): Promise<never> {
          events.push('send');
          throw new Error('Email address is not verified');
        },
      },
    };
    const slug = uniqueSlug('mail');
    const io = {
      out: (text: string) => events.push(`out ${text}`),
      err: (text: string) => events.push(`err ${text}`),
    };

    const code = await runCli(
      [
        'partners',
        'approve',
        '--name',
        'Mail PMS',
        '--slug',
        slug,
        '--email',
        'ops@mail.example',
        '--products',
        'assistant',
        '--json',
      ],
      io,
      { target: async () => failingMail },
    );

    expect(code).toBe(0);
    const printed = events.findIndex((event) => event.startsWith('out {'));
    expect(printed).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('send')).toBeGreaterThan(printed);
    expect(JSON.parse(events[printed]?.slice(4) ?? '{}').reveal_url).toMatch(/\/reveal\/.+#/);
    const warning = events.find((event) => event.startsWith('err Warning'));
    expect(warning).toContain('NOT e-mailed to ops@mail.example (Email address is not verified)');
    expect(warning).toContain(`keys rotate --partner ${slug}`);
  });

  it('refuses before issuing anything when the mail check fails, unless told not to mail', async () => {
    const { testTarget, uniqueSlug } = await import('../support/partners');
    const unverified = {
      ...testTarget(),
      mailer: {
        async check() {
          return ['The sender partners@example.com is not a verified SES identity in eu-west-1'];
        },
        async send(): Promise<never> {
          throw new Error('not reached');
        },
      },
    };
    const slug = uniqueSlug('nomail');
    const errors: string[] = [];
    const approve = (...extra: string[]) =>
      runCli(
        [
          'partners',
          'approve',
          '--name',
          'No Mail PMS',
          '--slug',
          slug,
          '--email',
          'ops@nomail.example',
          '--products',
          'assistant',
          ...extra,
        ],
        { out: () => undefined, err: (text) => errors.push(text) },
        { target: async () => unverified },
      );

    const refused = await approve();
    const missing = await admin('partners', 'show', slug);
    const printedOnly = await approve('--no-mail');

    expect(refused).toBe(1);
    expect(errors.join('\n')).toContain('Nothing was issued');
    expect(errors.join('\n')).toContain('not a verified SES identity');
    expect(missing.code).toBe(1);
    expect(printedOnly).toBe(0);
  });
});

describe('one-time reveal page', () => {
  it('shows a button on GET without spending the key, refuses a damaged link, and reveals exactly once', async () => {
    const { approvePartner } = await import('../../operations/partners');
    const { testTarget, uniqueSlug } = await import('../support/partners');
    const slug = uniqueSlug('reveal');
    const { result } = await approvePartner(
      testTarget(),
      { name: 'Reveal PMS', slug, email: 'r@r.example', products: ['assistant'], scopes: [] },
      Date.now(),
    );
    const [pageUrl = ''] = result.reveal_url.split('#');

    const page = await fetch(pageUrl);
    const pageAgain = await fetch(pageUrl);
    const damaged = await fetch(pageUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret_digest: 'A'.repeat(43) }),
    });
    const key = await revealKey(result.reveal_url);
    const second = await fetch(pageUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret_digest: 'A'.repeat(43) }),
    });
    const pageAfter = await fetch(pageUrl);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('Reveal key');
    expect(pageAgain.status).toBe(200);
    expect(damaged.status).toBe(400);
    expect(key.startsWith(result.key_prefix)).toBe(true);
    expect(second.status).toBe(410);
    expect(pageAfter.status).toBe(410);
    expect(await pageAfter.text()).toContain('already shown');
  });

  it('cannot be spent by whoever reads the table: nothing stored is what the page presents', async () => {
    const { approvePartner } = await import('../../operations/partners');
    const { testTarget, uniqueSlug } = await import('../support/partners');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamoDb, tableName } = await import('../../lambdas/data/db');
    const { result } = await approvePartner(
      testTarget(),
      {
        name: 'Table Reader',
        slug: uniqueSlug('reader'),
        email: 't@t.example',
        products: ['assistant'],
        scopes: [],
      },
      Date.now(),
    );
    const [pageUrl = ''] = result.reveal_url.split('#');
    const revealId = pageUrl.split('/').at(-1) ?? '';
    const { Item = {} } = await dynamoDb().send(
      new GetCommand({ TableName: tableName(), Key: { PK: `REVEAL#${revealId}`, SK: 'REVEAL' } }),
    );
    const storedStrings = Object.values(Item).filter((value): value is string => typeof value === 'string');
    expect(storedStrings.length).toBeGreaterThan(5);

    // Every stored string presented as the digest: none spends the reveal.
    for (const value of storedStrings) {
      const attempt = await fetch(pageUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ secret_digest: value }),
      });
      expect(attempt.status, `presenting a stored value (${value.slice(0, 12)}…)`).toBe(400);
    }
    expect((await revealKey(result.reveal_url)).startsWith(result.key_prefix)).toBe(true);
  });

  it('answers an unknown reveal link with a 404 page', async () => {
    const response = await fetch(`${inject('activationBaseUrl')}/reveal/AAAAAAAAAAAAAAAAAAAAAAAA`);

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
  });
});

describe('operator input that DynamoDB would refuse', () => {
  it('refuses an e-mail address with control or bidi characters, which would reach a mail header', async () => {
    const { uniqueSlug } = await import('../support/partners');
    for (const email of ['x\u001b[2J@evil.example', 'evil\u202elpmaxe@evil.example']) {
      const slug = uniqueSlug('mail');
      const refused = await admin(
        'partners',
        'approve',
        '--name',
        'Evil',
        '--slug',
        slug,
        '--email',
        email,
        '--products',
        'assistant',
        '--no-mail',
      );

      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('is not an e-mail address');
      expect((await admin('partners', 'show', slug)).code).toBe(1);
    }
  });

  const longSlug = 'a'.repeat(3_000);

  it.each([
    ['partners', 'show', longSlug],
    ['keys', 'list', '--partner', longSlug],
    ['keys', 'rotate', '--partner', longSlug, '--no-mail'],
    ['sample-data', 'add', '--partner', longSlug],
    [
      'links',
      'create',
      '--partner',
      longSlug,
      '--email',
      'h@example.com',
      '--name',
      'Casa',
      '--pms-hotel-id',
      'P-1',
      '--products',
      'assistant',
    ],
  ])(
    '%s %s: a 3,000-character slug is refused by name, briefly, never as a DynamoDB error',
    async (...argv) => {
      const { code, stdout, stderr } = await admin(...argv);

      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/is not a partner slug/);
      expect(stderr).not.toMatch(
        /ValidationException|Key|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/,
      );
      expect(stderr.length).toBeLessThan(300);
    },
  );
});
