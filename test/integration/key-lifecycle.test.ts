import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgetCachedKeys } from '../../lambdas/api/authenticate';
import { handler as authorizer } from '../../lambdas/api/authorizer';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { admin, adminJson } from '../support/cli';
import { authorizerEvent } from '../support/events';
import { approvedPartner, revealKey } from '../support/partners';

/** The authorizer's verdict on a key, read fresh from the table (its 25 s cache emptied first). */
async function verdict(key: string) {
  forgetCachedKeys();
  const result = await authorizer(authorizerEvent({ Authorization: `Bearer ${key}` }));
  const [statement] = result.policyDocument.Statement as { Effect: string }[];
  return {
    effect: statement?.Effect,
    problem: String(result.context?.problemType ?? '')
      .split('/')
      .at(-1),
    scopes: String(result.context?.scopes ?? ''),
  };
}

const revealIdOf = (revealUrl: string) => revealUrl.split('#')[0]?.split('/').at(-1) ?? '';

/** Posts a reveal link's digest as the page's script does; the raw answer. */
async function openReveal(revealUrl: string) {
  const { createHash } = await import('node:crypto');
  const [pageUrl = '', secret = ''] = revealUrl.split('#');
  const response = await fetch(pageUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      secret_digest: createHash('sha256').update(Buffer.from(secret, 'base64url')).digest('base64url'),
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

describe('key lifecycle: what decides who gets in is stored on the key', () => {
  beforeEach(() => forgetCachedKeys());

  it('a rotated-out key stays out after TTL deletes its replacement’s reveal record', async () => {
    const partner = await approvedPartner({ revenue: true });
    const rotated = await adminJson(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--grace-hours',
      '0',
      '--no-mail',
    );
    await revealKey(rotated.reveal_url);
    await adminJson('partners', 'update', '--partner', partner.slug, '--scopes', '');

    // DynamoDB's TTL deletes the reveal record two weeks after it was created.
    await dynamoDb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: { PK: `REVEAL#${revealIdOf(rotated.reveal_url)}`, SK: 'REVEAL' },
      }),
    );

    expect(await verdict(partner.key)).toMatchObject({ effect: 'Deny', problem: 'expired-api-key' });
  });

  it('a superseded key’s reveal link reveals nothing and retires nothing', async () => {
    const partner = await approvedPartner();
    const first = await adminJson(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--grace-hours',
      '0',
      '--no-mail',
    );
    const second = await adminJson(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--grace-hours',
      '0',
      '--no-mail',
    );

    const opened = await openReveal(first.reveal_url);
    const listed = await adminJson('keys', 'list', '--partner', partner.slug);

    expect(second.superseded).toEqual([first.key_prefix]);
    expect(opened.status).toBe(410);
    expect(opened.body.message).toContain('replaced by a newer one');
    expect(opened.body).not.toHaveProperty('ciphertext');
    expect(await verdict(partner.key)).toMatchObject({ effect: 'Allow' });
    expect(
      listed.keys.find((key: { key_prefix: string }) => key.key_prefix === first.key_prefix),
    ).toMatchObject({ state: 'superseded' });
    // The newest link still works, and only it retires the key in use.
    const newest = await revealKey(second.reveal_url);
    expect(await verdict(newest)).toMatchObject({ effect: 'Allow' });
    expect(await verdict(partner.key)).toMatchObject({ effect: 'Deny', problem: 'expired-api-key' });
  });

  it('a revoked key’s reveal link reveals nothing, and the partner keeps its working key', async () => {
    const partner = await approvedPartner();
    const rotated = await adminJson(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--grace-hours',
      '0',
      '--no-mail',
    );
    await adminJson('keys', 'revoke', '--prefix', rotated.key_prefix);

    const opened = await openReveal(rotated.reveal_url);
    const listed = await adminJson('keys', 'list', '--partner', partner.slug);

    expect(opened.status).toBe(410);
    expect(opened.body.message).toContain('revoked');
    expect(opened.body).not.toHaveProperty('ciphertext');
    expect(await verdict(partner.key)).toMatchObject({ effect: 'Allow' });
    const byPrefix = new Map(listed.keys.map((key: { key_prefix: string }) => [key.key_prefix, key]));
    expect(byPrefix.get(partner.keyPrefix)).toMatchObject({ state: 'active', expires_at: null });
    expect(byPrefix.get(rotated.key_prefix)).toMatchObject({ state: 'revoked' });
  });
});

describe('what a reveal link tells whom', () => {
  it('records a refused reveal only for whoever holds the link’s secret: a known reveal id cannot fill the trail', async () => {
    const partner = await approvedPartner();
    const rotated = await adminJson('keys', 'rotate', '--partner', partner.slug, '--no-mail');
    await adminJson('keys', 'revoke', '--prefix', rotated.key_prefix);
    const [pageUrl = ''] = rotated.reveal_url.split('#');
    const refusedEvents = async () =>
      (await adminJson('audit', 'list', '--partner', partner.slug, '--action', 'key.reveal-refused')).events
        .length;

    for (let attempt = 0; attempt < 5; attempt++) {
      const guessed = await fetch(pageUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ secret_digest: 'A'.repeat(43) }),
      });
      expect(guessed.status).toBe(410);
    }
    const withoutSecret = await refusedEvents();
    const holder = await openReveal(rotated.reveal_url);

    expect(withoutSecret).toBe(0);
    expect(holder.status).toBe(410);
    expect(await refusedEvents()).toBe(1);
  });

  it('answers “not valid” for a reveal whose key item this code cannot read, never “already shown”', async () => {
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const partner = await approvedPartner();
    const rotated = await adminJson('keys', 'rotate', '--partner', partner.slug, '--no-mail');
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: `APIKEY#${rotated.key_prefix}`, SK: 'APIKEY' },
        UpdateExpression: 'REMOVE #state',
        ExpressionAttributeNames: { '#state': 'state' },
      }),
    );

    const opened = await openReveal(rotated.reveal_url);

    expect(opened.status).toBe(404);
    expect(opened.body.message).toContain('not valid');
  });
});

describe('operators see and steer key state', () => {
  it('keys list shows each key’s state in words and times under a header row', async () => {
    const partner = await approvedPartner();
    const rotated = await adminJson(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--grace-hours',
      '2',
      '--no-mail',
    );
    const pending = await admin('keys', 'list', '--partner', partner.slug);
    await revealKey(rotated.reveal_url);
    const superseding = await adminJson('keys', 'rotate', '--partner', partner.slug, '--no-mail');
    await adminJson('keys', 'rotate', '--partner', partner.slug, '--no-mail');
    const listed = await admin('keys', 'list', '--partner', partner.slug);

    const [header, ...rows] = pending.stdout.split('\n');
    expect(header).toMatch(/^PREFIX\s+STATE\s+SCOPES\s+CREATED\s+LAST USED$/);
    expect(rows.find((row) => row.startsWith(partner.keyPrefix))).toContain(
      `active, retires 2 h after ${rotated.key_prefix} is revealed`,
    );
    expect(rows.find((row) => row.startsWith(rotated.key_prefix))).toMatch(
      /pending reveal \(link works until \d{4}-/,
    );
    const after = listed.stdout.split('\n');
    expect(after.find((row) => row.startsWith(partner.keyPrefix))).toMatch(
      /retiring until \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    expect(after.find((row) => row.startsWith(superseding.key_prefix))).toMatch(
      /superseded at .* \(never revealed\)/,
    );
  });

  it('warns when a revocation leaves the partner without a key in force', async () => {
    const partner = await approvedPartner();
    const rotated = await adminJson(
      'keys',
      'rotate',
      '--partner',
      partner.slug,
      '--grace-hours',
      '0',
      '--no-mail',
    );
    const pendingLeft = await admin('keys', 'revoke', '--prefix', partner.keyPrefix);
    await adminJson('keys', 'revoke', '--prefix', rotated.key_prefix);
    const other = await approvedPartner();
    const nothingLeft = await admin('keys', 'revoke', '--prefix', other.keyPrefix);

    expect(pendingLeft.stderr).toContain(
      `its pending reveal link (${rotated.key_prefix}) gives it one once opened`,
    );
    expect(nothingLeft.code).toBe(0);
    expect(nothingLeft.stderr).toContain(`Warning: ${other.slug} has no key in force any more`);
    expect(nothingLeft.stderr).toContain(`keys rotate --partner ${other.slug}`);
  });

  it('a revocation racing the reveal of the same key never leaves the partner keyless without a warning', async () => {
    const { revokeKey } = await import('../../operations/keys');
    const { testTarget } = await import('../support/partners');
    for (let round = 0; round < 6; round++) {
      const partner = await approvedPartner();
      const rotated = await adminJson(
        'keys',
        'rotate',
        '--partner',
        partner.slug,
        '--grace-hours',
        '0',
        '--no-mail',
      );

      const [revealed, revoked] = await Promise.all([
        openReveal(rotated.reveal_url),
        revokeKey(testTarget(), rotated.key_prefix, Date.now()).then(
          (result) => ({ ok: true as const, warning: result.warning }),
          (error: Error) => ({ ok: false as const, message: error.message }),
        ),
      ]);
      const keys = (await adminJson('keys', 'list', '--partner', partner.slug)).keys as { state: string }[];
      const inForce = keys.some((key) => key.state === 'active' || key.state === 'retiring');

      if (!revoked.ok) expect(revoked.message).toContain('while revoking it');
      if (revealed.status === 200 && !revoked.ok) expect(inForce).toBe(true);
      if (!inForce)
        expect(revoked).toMatchObject({ ok: true, warning: expect.stringContaining('no key in force') });
    }
  });

  it('revoking a revoked or superseded key says so and changes nothing', async () => {
    const partner = await approvedPartner();
    const first = await admin('keys', 'revoke', '--prefix', partner.keyPrefix);
    const again = await admin('keys', 'revoke', '--prefix', partner.keyPrefix);
    const events = await adminJson('audit', 'list', '--partner', partner.slug, '--action', 'key.revoked');

    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toMatch(/revoked at/);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('was already revoked at');
    expect(again.stdout).toContain('nothing changed');
    expect(events.events).toHaveLength(1);
  });

  it('suspends a partner: keys refused with their own problem, links and reveals not available, nothing deleted; resume restores', async () => {
    const partner = await approvedPartner();
    const rotated = await adminJson('keys', 'rotate', '--partner', partner.slug, '--no-mail');
    const link = await adminJson(...linkArgs(partner.slug));
    // Opened once before: the page's instance knows the partner (a suspension must still show at once).
    const before = await fetch(link.url, { redirect: 'manual' });
    await before.arrayBuffer();

    const suspended = await admin(
      'partners',
      'suspend',
      '--partner',
      partner.slug,
      '--reason',
      'invoice overdue',
    );
    const twice = await admin('partners', 'suspend', '--partner', partner.slug, '--reason', 'again');
    const refusal = await verdict(partner.key);
    const reveal = await openReveal(rotated.reveal_url);
    const revealPage = await fetch(rotated.reveal_url.split('#')[0] ?? '');
    const activation = await fetch(link.url, { redirect: 'manual' });
    const listedWhileSuspended = await admin('keys', 'list', '--partner', partner.slug);

    expect(before.status).toBeLessThan(400);
    expect(suspended.code).toBe(0);
    expect(twice.stdout).toContain('was already suspended');
    expect(refusal).toMatchObject({ effect: 'Deny', problem: 'partner-suspended' });
    expect(reveal.status).toBe(403);
    expect(reveal.body.message).toContain('not available');
    expect(revealPage.status).toBe(403);
    expect(await revealPage.text()).toContain('Not available');
    expect(activation.status).toBe(403);
    expect(await activation.text()).toContain('not available');
    expect(listedWhileSuspended.stdout.split('\n')[0]).toContain('is suspended');
    const audited = await admin('audit', 'list', '--partner', partner.slug, '--action', 'partner.suspended');
    expect(audited.stdout).toContain('reason="invoice overdue"');

    const resumed = await admin('partners', 'resume', '--partner', partner.slug);
    expect(resumed.code).toBe(0);
    expect(await verdict(partner.key)).toMatchObject({ effect: 'Allow' });
    // The reveal was not spent while suspended: it works now, and retires the old key as usual.
    expect((await revealKey(rotated.reveal_url)).startsWith(rotated.key_prefix)).toBe(true);
    const actions = (await adminJson('audit', 'list', '--partner', partner.slug)).events.map(
      (event: { action: string }) => event.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['partner.suspended', 'partner.resumed', 'key.reveal-refused']),
    );
  });

  it('lists a partner’s activation links: masked e-mail, products, expiry, used or open', async () => {
    const partner = await approvedPartner();
    const first = await adminJson(...linkArgs(partner.slug));
    const second = await adminJson(...linkArgs(partner.slug, 'PMS-2'));
    await sponsoredPropertyFromLink(partner.id, first.nonce);

    const listed = await adminJson('links', 'list', '--partner', partner.slug);
    const text = await admin('links', 'list', '--partner', partner.slug);

    expect(listed.links.map((link: { nonce: string }) => link.nonce)).toEqual([second.nonce, first.nonce]);
    expect(listed.links[1]).toMatchObject({
      host_email: 'h…@links.example',
      products: ['assistant'],
      state: 'used',
      used_at: expect.any(String),
      expires_at: first.expires_at,
    });
    expect(listed.links[0]).toMatchObject({ state: 'open', used_at: null, pms_hotel_id: 'PMS-2' });
    expect(text.stdout.split('\n')[0]).toMatch(/^NONCE\s+HOST\s+PMS HOTEL\s+PRODUCTS\s+EXPIRES\s+STATE$/);
    expect(text.stdout).not.toContain('host@links.example');
  });
});

/** `links create` arguments for a host of the partner. */
function linkArgs(slug: string, pmsHotelId = 'PMS-1'): string[] {
  return [
    'links',
    'create',
    '--partner',
    slug,
    '--email',
    'host@links.example',
    '--name',
    'Links Host',
    '--pms-hotel-id',
    pmsHotelId,
    '--products',
    'assistant',
  ];
}

/** Provisions as the marketplace does when a link is used: the nonce is consumed. */
async function sponsoredPropertyFromLink(partnerId: number, nonce: string) {
  const { provisionSponsoredHost } = await import('../../lambdas/data/provisioning');
  return provisionSponsoredHost({
    partnerId,
    contactEmail: 'host@links.example',
    contactName: 'Links Host',
    pmsHotelId: 'PMS-1',
    propertyName: 'Links Host',
    productIds: ['assistant'],
    nonce: { value: nonce, tokenExpiresAtMs: Date.now() + 3_600_000 },
    nowMs: Date.now(),
  });
}
