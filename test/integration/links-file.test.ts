import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { admin, adminJson } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';

let directory: string;
let partner: TestPartner;
let files = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'links-file-'));
  partner = await approvedPartner({ products: ['assistant', 'upsells'] });
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A hosts file with these lines, and the path of a links file that does not exist yet. */
async function hostsFile(text: string) {
  files += 1;
  const file = join(directory, `hosts-${files}.csv`);
  await writeFile(file, text);
  return { file, out: join(directory, `links-${files}`) };
}

const linksCreated = async (slug: string) =>
  (await adminJson('audit', 'list', '--partner', slug, '--action', 'link.created', '--limit', '1000'))
    .events as {
    link_nonce: string;
  }[];

/** Opens a link as the host's browser would: a working link starts a session and redirects. */
const opens = async (url: string) => (await fetch(url, { redirect: 'manual' })).status;

describe('links create --file hosts.csv', () => {
  it('mints one working link per row, writes url, expiry and nonce, and audits each link', async () => {
    const { file, out } = await hostsFile(
      '\uFEFFemail,name,pms_hotel_id,products\r\n' +
        'one@host.example,Casa Uno,PMS-1,"assistant,upsells"\r\n' +
        'two@host.example,"Dos, the second",PMS-2,\r\n' +
        '\r\n' +
        'three@host.example,Casa Tres,PMS-3,upsells\r\n',
    );
    const before = Date.now();

    const result = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--products',
      'assistant',
      '--ttl-seconds',
      '86400',
      '--out',
      `${out}.csv`,
    );

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(`^Wrote 3 link\\(s\\) for ${partner.slug} to .*links-\\d+\\.csv; they expire `),
    );
    const [header, ...rows] = (await readFile(`${out}.csv`, 'utf8')).trimEnd().split('\n');
    expect(header).toBe('line,email,name,pms_hotel_id,products,url,expires_at,nonce');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^2,one@host\.example,Casa Uno,PMS-1,"assistant,upsells",http/);
    expect(rows[1]).toMatch(/^3,two@host\.example,"Dos, the second",PMS-2,assistant,http/);
    const links = rows.map((row) => {
      const [, url = '', expiresAt = '', nonce = ''] = /,(http[^,]+),([^,]+),([^,]+)$/.exec(row) ?? [];
      return { url, expiresAt, nonce };
    });
    for (const link of links) {
      expect(link.url).toMatch(`${inject('activationBaseUrl')}/partner/${partner.slug}/activate?token=`);
      expect(await opens(link.url)).toBe(303);
      expect(Date.parse(link.expiresAt) - before).toBeGreaterThanOrEqual(86_400_000 - 1_000);
      expect(Date.parse(link.expiresAt) - before).toBeLessThan(86_400_000 + 60_000);
    }
    expect((await stat(`${out}.csv`)).mode & 0o777).toBe(0o600);
    const audited = (await linksCreated(partner.slug)).map((event) => event.link_nonce);
    expect(audited).toEqual(expect.arrayContaining(links.map((link) => link.nonce)));
  });

  it('writes JSON with --out links.json, and prints CSV without --out', async () => {
    const { file, out } = await hostsFile('email,name,pms_hotel_id\nfour@host.example,Casa Cuatro,PMS-4\n');

    const written = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--products',
      'upsells',
      '--out',
      `${out}.json`,
    );
    const printed = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--products',
      'upsells',
      '--again',
    );

    expect(written.code).toBe(0);
    expect(JSON.parse(await readFile(`${out}.json`, 'utf8'))).toEqual({
      partner: partner.slug,
      links: [
        {
          line: 2,
          email: 'four@host.example',
          name: 'Casa Cuatro',
          pms_hotel_id: 'PMS-4',
          products: ['upsells'],
          url: expect.stringContaining('/activate?token='),
          expires_at: expect.any(String),
          nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        },
      ],
    });
    expect(printed.code).toBe(0);
    expect(printed.stdout.split('\n')[0]).toBe('line,email,name,pms_hotel_id,products,url,expires_at,nonce');
    expect(printed.stderr).toMatch(/^1 link\(s\) for .*; they expire .*; each works once\.$/);
  });

  it('refuses an e-mail the activation page would refuse with the words of the command line', async () => {
    // Passes a loose "x@y.z" shape, but not the activation page's rule.
    const email = 'first..last@host.example';
    const { file } = await hostsFile(
      `email,name,pms_hotel_id,products\n${email},Casa Punto,PMS-90,assistant\n`,
    );

    const fromFile = await admin('links', 'create', '--partner', partner.slug, '--file', file);
    const single = await admin(
      ...['links', 'create', '--partner', partner.slug, '--email', email, '--name', 'Casa Punto'],
      ...['--pms-hotel-id', 'PMS-90', '--products', 'assistant'],
    );

    expect(single).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--email "${email}" is not an e-mail address.`),
    });
    expect(fromFile).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `Nothing was minted: line 2, email: email "${email}" is not an e-mail address.`,
      ),
    });
    expect(`${single.stderr}${fromFile.stderr}`).not.toMatch(/contact_email|claim/);
  });

  it.each([
    [
      'a malformed row, with its line, and every other bad row too',
      'email,name,pms_hotel_id,products\nok@host.example,Fine,PMS-10,assistant\nnot-an-email,Bad,PMS-11,assistant\nx@host.example,,PMS 12,assistant\n',
      [
        /line 3, email: email "not-an-email" is not an e-mail address/,
        /line 4, name: name must be 1-120/,
        /line 4, pms_hotel_id:/,
      ],
    ],
    [
      'a row with too few fields',
      'email,name,pms_hotel_id\nok@host.example,Fine\n',
      [/line 2: 2 fields where the header has 3/],
    ],
    [
      'a hotel twice',
      'email,name,pms_hotel_id,products\na@host.example,A,PMS-20,assistant\nb@host.example,B,PMS-20,assistant\n',
      [/line 3, pms_hotel_id: "PMS-20" is on line 2 too/],
    ],
    ['an unknown column', 'email,name,hotel\na@host.example,A,PMS-30\n', [/line 1 must name the columns/]],
    [
      'a row without products and no --products',
      'email,name,pms_hotel_id\na@host.example,A,PMS-40\n',
      [/line 2, products: empty/],
    ],
    [
      'a malformed product id',
      'email,name,pms_hotel_id,products\na@host.example,A,PMS-50,Assistant!\n',
      [/line 2, products: Not a product id: Assistant!/],
    ],
    ['only a header', 'email,name,pms_hotel_id\n', [/no rows after its header/]],
  ])('exits 2 for %s, and mints nothing', async (_, text, messages) => {
    const { file, out } = await hostsFile(text);
    const before = (await linksCreated(partner.slug)).length;

    const result = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--out',
      `${out}.csv`,
    );

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage error: Nothing was minted/);
    for (const message of messages) expect(result.stderr).toMatch(message);
    expect(await stat(`${out}.csv`).catch(() => undefined)).toBeUndefined();
    expect(await linksCreated(partner.slug)).toHaveLength(before);
  });

  it('run twice, mints nothing the second time unless --again: it names the lines whose links are open', async () => {
    const { file } = await hostsFile(
      'email,name,pms_hotel_id,products\nsix@host.example,Seis,PMS-6,assistant\nseven@host.example,Siete,PMS-7,assistant\n',
    );
    const run = (...extra: string[]) =>
      admin('links', 'create', '--partner', partner.slug, '--file', file, ...extra);

    const first = await run();
    const before = (await linksCreated(partner.slug)).length;
    const second = await run();
    const single = await admin(
      ...['links', 'create', '--partner', partner.slug, '--email', 'six@host.example', '--name', 'Seis'],
      ...['--pms-hotel-id', 'PMS-6', '--products', 'assistant'],
    );
    const unchanged = (await linksCreated(partner.slug)).length;
    const again = await run('--again');

    expect(first.code).toBe(0);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /Nothing was minted: 2 properties already have an open link from .* \(was this run before\?\)/,
    );
    expect(second.stderr).toMatch(/line 2: PMS-6: link \S+ is open until /);
    expect(second.stderr).toMatch(/line 3: PMS-7: link /);
    expect(second.stderr).toContain('Pass --again');
    expect(single.code).toBe(1);
    expect(single.stderr).toContain('this property already has an open link');
    expect(unchanged).toBe(before);
    expect(again.code).toBe(0);
    expect((await linksCreated(partner.slug)).length).toBe(before + 2);
  });

  it('mints nothing when a row’s host is being erased, rather than the rows before it', async () => {
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamoDb, tableName } = await import('../../lambdas/data/db');
    const { issuedLinksOfEmailPartition: hostEmailPartition } = await import('../../lambdas/data/hosts');
    const erased = `erasing-${Date.now()}@host.example`;
    // An erasure under way marks the address's claim first (lambdas/data/erasure.ts).
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: hostEmailPartition(erased), SK: 'HOSTEMAIL' },
        UpdateExpression: 'SET erasingSince = :now',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    const { file } = await hostsFile(
      `email,name,pms_hotel_id,products\nfirst@host.example,First,PMS-80,assistant\n${erased},Gone,PMS-81,assistant\n`,
    );
    const before = (await linksCreated(partner.slug)).length;

    const result = await admin('links', 'create', '--partner', partner.slug, '--file', file);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Nothing was minted: the host account of line 3 (${erased}) is being erased`,
    );
    expect(await linksCreated(partner.slug)).toHaveLength(before);
  });

  it('exits 1 when the agreement refuses a row, naming each such line, and mints nothing', async () => {
    const { file, out } = await hostsFile(
      'email,name,pms_hotel_id,products\na@host.example,A,PMS-60,assistant\nb@host.example,B,PMS-61,guidebook\nc@host.example,C,PMS-62,checkin upsells\n',
    );
    const before = (await linksCreated(partner.slug)).length;

    const result = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--out',
      `${out}.csv`,
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Nothing was minted: products not in .*'s agreement \(assistant, upsells\)/,
    );
    expect(result.stderr).toMatch(/line 3: guidebook/);
    expect(result.stderr).toMatch(/line 4: checkin/);
    expect(await stat(`${out}.csv`).catch(() => undefined)).toBeUndefined();
    expect(await linksCreated(partner.slug)).toHaveLength(before);
  });

  it('exits 1 for an unknown partner, and 2 for usage mistakes around --file', async () => {
    const { file, out } = await hostsFile(
      'email,name,pms_hotel_id,products\na@host.example,A,PMS-70,assistant\n',
    );
    await writeFile(`${out}.csv`, 'already here');

    const unknown = await admin('links', 'create', '--partner', 'no-such-partner', '--file', file);
    const exists = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--out',
      `${out}.csv`,
    );
    const mixed = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      file,
      '--email',
      'a@b.example',
    );
    const missingFile = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--file',
      join(directory, 'none.csv'),
    );
    const neither = await admin('links', 'create', '--partner', partner.slug, '--email', 'a@b.example');

    expect(unknown).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/No partner with slug "no-such-partner"/),
    });
    expect(exists).toMatchObject({ code: 2, stderr: expect.stringMatching(/exists: name a new file/) });
    expect(await readFile(`${out}.csv`, 'utf8')).toBe('already here');
    expect(mixed).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--file takes the hosts from the file/),
    });
    expect(missingFile).toMatchObject({ code: 2, stderr: expect.stringMatching(/no such file/) });
    expect(neither).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /links create needs --name, --pms-hotel-id, --products \(or --file hosts\.csv/,
      ),
    });
  });
});
