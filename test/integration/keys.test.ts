import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { isOneLine } from '../../core/domain/text';
import { admin } from '../support/cli';
import { apiGet, revealKey } from '../support/partners';

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
