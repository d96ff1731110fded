import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { admin, adminJson as json } from '../support/cli';
import { apiGet, approvedPartner, revealKey, uniqueSlug } from '../support/partners';
import { walkWizard } from '../support/wizard';

/** A command that must succeed; its stdout. */
async function run(...argv: string[]): Promise<string> {
  const { code, stdout, stderr } = await admin(...argv);
  if (code !== 0) throw new Error(`admin ${argv.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

interface ListedEvent {
  at: string;
  actor: string;
  action: string;
  partner: string | null;
  key_prefix?: string;
  host_id?: number;
  property_id?: number;
  link_nonce?: string;
  request_id?: string;
  details?: Record<string, unknown>;
}
const auditOf = async (...filters: string[]): Promise<ListedEvent[]> =>
  (await json('audit', 'list', '--limit', '1000', ...filters)).events;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('audit trail', () => {
  it('records a whole partner life, with its actors, newest first, and never a secret', async () => {
    const operator = userInfo().username;
    const slug = uniqueSlug('audit');
    const hostEmail = `host-${slug}@example.com`;
    const approved = await json(
      'partners',
      'approve',
      '--name',
      'Audit PMS',
      '--slug',
      slug,
      '--email',
      `api@${slug}.example`,
      '--products',
      'assistant,upsells',
      '--scopes',
      'revenue:read',
      '--no-mail',
    );
    const key = await revealKey(approved.reveal_url);
    expect((await apiGet('/usage', key)).status).toBe(200);

    const link = await json(
      'links',
      'create',
      '--partner',
      slug,
      '--email',
      hostEmail,
      '--name',
      'Casa Audit',
      '--pms-hotel-id',
      `PMS-${slug}`,
      '--products',
      'assistant',
    );
    const page = await (await browser.newContext()).newPage();
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    // The link offers the assistant alone: its steps only (docs/design/host-pages.md), to the end.
    await walkWizard(page, ['assistant'], {
      look: async (step) => {
        if (step === 'review')
          expect(await page.getByRole('button', { name: 'Make my assistant live' }).count()).toBe(1);
      },
    });
    expect(page.url()).toMatch(/step=done/);

    const shown = await json('partners', 'show', slug);
    const propertyId = shown.properties[0].id as number;
    const file = join(inject('localDirectory'), `${slug}-reservations.json`);
    await writeFile(
      file,
      JSON.stringify([
        {
          id: 'r1',
          property_id: propertyId,
          channel: 'Direct',
          booked_at: '2026-10-01T10:00:00Z',
          check_in: '2026-12-01',
          check_out: '2026-12-04',
          status: 'confirmed',
        },
      ]),
    );
    await run('reservations', 'import', '--property', String(propertyId), '--file', file);
    await run('partners', 'update', '--partner', slug, '--scopes', '');
    const rotated = await json('keys', 'rotate', '--partner', slug, '--no-mail');
    await run('keys', 'revoke', '--prefix', approved.key_prefix);

    const events = await auditOf('--partner', slug);

    expect(events.map((event) => event.at)).toEqual(
      events
        .map((event) => event.at)
        .sort()
        .reverse(),
    );
    const byAction = (action: string) => events.filter((event) => event.action === action);
    expect(new Set(events.map((event) => event.action))).toEqual(
      new Set([
        'partner.approved',
        'key.issued',
        'key.revealed',
        'link.created',
        'host.provisioned',
        'onboarding.completed',
        'reservations.imported',
        'agreement.changed',
        'key.rotated',
        'key.revoked',
      ]),
    );
    expect(events.every((event) => event.partner === slug)).toBe(true);
    for (const action of ['partner.approved', 'link.created', 'reservations.imported', 'agreement.changed']) {
      expect(byAction(action)).toEqual([expect.objectContaining({ actor: operator })]);
    }
    expect(byAction('key.issued')).toEqual([
      expect.objectContaining({ actor: operator, key_prefix: rotated.key_prefix }),
      expect.objectContaining({ actor: operator, key_prefix: approved.key_prefix }),
    ]);
    expect(byAction('key.revealed')).toEqual([
      expect.objectContaining({
        actor: 'partner',
        key_prefix: approved.key_prefix,
        request_id: expect.any(String),
      }),
    ]);
    const [provisioned] = byAction('host.provisioned');
    expect(provisioned).toMatchObject({
      actor: 'host',
      property_id: propertyId,
      host_id: expect.any(Number),
      link_nonce: link.nonce,
      request_id: expect.any(String),
    });
    expect(byAction('onboarding.completed')).toEqual([
      expect.objectContaining({ actor: 'host', property_id: propertyId, host_id: provisioned?.host_id }),
    ]);
    expect(byAction('key.rotated')).toEqual([
      expect.objectContaining({
        actor: operator,
        key_prefix: rotated.key_prefix,
        details: expect.objectContaining({ retiring: [approved.key_prefix] }),
      }),
    ]);
    expect(byAction('key.revoked')).toEqual([
      expect.objectContaining({ actor: operator, key_prefix: approved.key_prefix }),
    ]);
    expect(byAction('reservations.imported')[0]?.details).toMatchObject({ published: 1 });

    const stored = JSON.stringify(events);
    const token = new URL(link.url).searchParams.get('token') ?? '';
    for (const secret of [key, approved.reveal_url.split('#')[1], rotated.reveal_url.split('#')[1], token]) {
      expect(secret?.length).toBeGreaterThan(20);
      expect(stored).not.toContain(secret);
    }
    expect(stored).not.toContain(hostEmail);
    expect(stored).not.toContain(key.slice(12));

    expect(await auditOf('--partner', slug, '--action', 'key.issued')).toEqual(byAction('key.issued'));
    expect(await auditOf('--partner', slug, '--since', provisioned?.at ?? '')).toEqual(
      events.filter((event) => event.at >= (provisioned?.at ?? '')),
    );
    expect(await json('audit', 'list', '--partner', slug, '--limit', '2')).toEqual({
      events: events.slice(0, 2),
    });
    expect((await auditOf('--since', '2999-01-01')).length).toBe(0);
    // As a table, times read as in every other list: to the minute, in UTC.
    const table = await admin('audit', 'list', '--partner', slug, '--limit', '1');
    expect(table.stdout.split('\n')[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC {2}\S/);
  });

  it("never shows one partner's events in another's trail", async () => {
    const [one, other] = await Promise.all([approvedPartner(), approvedPartner()]);
    await run('keys', 'revoke', '--prefix', one.keyPrefix);

    const otherEvents = await auditOf('--partner', other.slug);
    const everyone = await auditOf('--action', 'key.revoked');

    expect(otherEvents.length).toBeGreaterThan(0);
    expect(otherEvents.every((event) => event.partner === other.slug)).toBe(true);
    expect(JSON.stringify(otherEvents)).not.toContain(one.keyPrefix);
    expect(everyone).toContainEqual(
      expect.objectContaining({ partner: one.slug, key_prefix: one.keyPrefix }),
    );
  });

  it('refuses bad filters with a message and a non-zero exit', async () => {
    expect(await admin('audit', 'list', '--action', 'key.stolen')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--action must be one of partner.approved'),
    });
    expect(await admin('audit', 'list', '--since', 'yesterday')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--since must be an ISO 8601 date'),
    });
    expect(await admin('audit', 'list', '--since', '2026-02-30')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--since must be an ISO 8601 date'),
    });
    expect(await admin('audit', 'list', '--limit', '0')).toMatchObject({ code: 2 });
    expect(await admin('audit', 'list', '--partner', 'no-such-partner-x')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No partner with slug'),
    });
  });
});
