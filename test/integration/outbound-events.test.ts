import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import type { ProductId } from '../../core/domain/catalog';
import { getHostIdByEmail } from '../../lambdas/data/hosts';
import { getPropertyIdForPmsHotel } from '../../lambdas/data/properties';
import type { SentEvent } from '../../operations/events';
import { admin, adminJson, adminProcess } from '../support/cli';
import { HostBrowser } from '../support/host-http';
import {
  expectContractEvent,
  holdEnrichment,
  PlatformInbox,
  sentEvents,
  untilListed,
} from '../support/outbound';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';
import { scanAll } from '../support/scan';

/*
 * What this service tells the platform (HostProvisioned, KnowledgeBaseSubmitted, HostErased), the
 * way operators and the platform meet it on the suite's local server: each change's event is in
 * the outbox the moment the change commits (`npm run admin -- events sent`), the local outbound
 * pipe delivers it within seconds to the platform's inbox (an SQS queue read with the SDK), holding
 * exactly the contract's fields; an erasure leaves ids only, everywhere; and an event whose
 * delivery fails waits, and is delivered once it can be.
 */

/** How soon after its change commits an event reaches the platform (the pipe reads the stream 5 times a second). */
const DELIVERY_MS = 5_000;

let folder: string;
let partner: TestPartner;
let inbox: PlatformInbox;
const PRODUCTS: ProductId[] = ['assistant', 'upsells'];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'outbound-events-'));
  partner = await approvedPartner({ name: 'Outbound PMS', products: ['assistant', 'upsells', 'guidebook'] });
  inbox = PlatformInbox.ofSuite();
});

afterAll(async () => {
  inbox?.close();
  await rm(folder, { recursive: true, force: true });
});

const tag = () => randomBytes(4).toString('hex');
const now = () => new Date().toISOString();

/** `links create` for this partner, as an operator mints a link: its URL. */
async function linkFor(host: { email: string; name: string; pmsHotelId: string }, products = PRODUCTS) {
  const { url } = await adminJson(
    'links',
    'create',
    '--partner',
    partner.slug,
    '--email',
    host.email,
    '--name',
    host.name,
    '--pms-hotel-id',
    host.pmsHotelId,
    '--products',
    products.join(','),
  );
  return url as string;
}

/** `events publish --file … --wait` of these platform events: every one applied. */
async function publish(...events: PlatformEvent[]) {
  const file = join(folder, `${tag()}.jsonl`);
  await writeFile(
    file,
    `${events.map((event) => JSON.stringify({ 'detail-type': event.type, detail: event.detail })).join('\n')}\n`,
  );
  const published = await admin('events', 'publish', '--file', file, '--wait', '--json');
  expect(published.code, published.stderr).toBe(0);
  expect(JSON.parse(published.stdout)).toMatchObject({ accepted: events.length, applied: true, refused: 0 });
}

/** The events of one type in a listing. */
const ofType = (events: readonly SentEvent[], type: string) =>
  events.filter((event) => event['detail-type'] === type);

describe('a provisioning', () => {
  it('is listed by events sent at once, reaches the platform within 5 s, with exactly the contract’s fields', async () => {
    // Prepare
    const host = {
      email: `ana.${tag()}@casa-outbound.example`,
      name: 'Casa Outbound',
      pmsHotelId: `OUT-${tag()}`,
    };
    const url = await linkFor(host);
    const before = now();

    // Act: the host opens the link in a French browser and activates both products.
    await new HostBrowser('fr').activate(url, PRODUCTS);
    const committedAt = Date.now();
    const listed = (await sentEvents('--since', before)).filter(
      (event) => event.detail.contact_email === host.email,
    );

    // Assess: in the outbox with its change, then taken for delivery and in the platform's inbox.
    expect(listed).toHaveLength(1);
    const [event] = listed as [SentEvent];
    const propertyId = await getPropertyIdForPmsHotel(partner.id, host.pmsHotelId);
    expectContractEvent(event);
    expect(event).toMatchObject({
      'detail-type': 'HostProvisioned',
      source: 'partner-api',
      version: 1,
      property_id: propertyId,
      erased_at: null,
    });
    expect(event.detail).toEqual({
      event_id: event.id,
      host_user_id: event.host_user_id,
      partner_id: partner.id,
      account: 'created',
      contact_email: host.email,
      contact_name: host.name,
      language: 'fr',
      // Named after the contact until the wizard's first step renames it.
      property: { property_id: propertyId, pms_hotel_id: host.pmsHotelId, name: host.name },
      products: PRODUCTS,
      version: 1,
      occurred_at: event.time,
    });
    expect(event.time >= before && Date.parse(event.time) <= committedAt).toBe(true);
    const [sent] = await untilListed(
      () => sentEvents('--host', String(event.host_user_id)),
      (events) => events[0]?.sent_at !== null,
      DELIVERY_MS - (Date.now() - committedAt),
      'the pipe takes the HostProvisioned for delivery',
    );
    const messages = await inbox.until(event.id, DELIVERY_MS - (Date.now() - committedAt));
    expect(sent).toEqual({ ...event, sent_at: expect.any(String) });
    expect(messages).toEqual([
      expect.objectContaining({
        source: 'partner-api',
        'detail-type': 'HostProvisioned',
        // EventBridge's time, to the second.
        time: event.time.replace(/\.\d{3}Z$/, 'Z'),
        detail: event.detail,
      }),
    ]);
  });

  it('links the same e-mail in another letter case or under another partner; a sponsoring again counts up', async () => {
    // Prepare
    const other = await approvedPartner({ products: ['assistant'] });
    const email = `Mixed.Case.${tag()}@Example.com`;
    const pmsHotelId = `LINK-${tag()}`;

    // Act
    const first = await sponsoredProperty(partner.id, { email, pmsHotelId });
    const otherCase = await sponsoredProperty(partner.id, {
      email: email.toLowerCase(),
      pmsHotelId: `${pmsHotelId}-2`,
    });
    const otherPartner = await sponsoredProperty(other.id, { email: email.toUpperCase(), pmsHotelId });
    const again = await sponsoredProperty(partner.id, { email, pmsHotelId });
    await publish({
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: first.hostUserId, version: 1, occurred_at: now() },
    });
    const resumed = await sponsoredProperty(partner.id, { email, pmsHotelId });

    // Assess
    for (const result of [otherCase, otherPartner, again, resumed])
      expect(result.hostUserId).toBe(first.hostUserId);
    expect(again.propertyId).toBe(first.propertyId);
    expect(resumed.propertyId).toBe(first.propertyId);
    const events = await sentEvents('--host', String(first.hostUserId));
    for (const event of events) expectContractEvent(event);
    expect(
      events.map(({ detail }) => ({
        account: detail.account,
        partner: detail.partner_id,
        property: (detail.property as { property_id: number }).property_id,
        email: detail.contact_email,
        version: detail.version,
      })),
    ).toEqual([
      { account: 'created', partner: partner.id, property: first.propertyId, email, version: 1 },
      {
        account: 'linked',
        partner: partner.id,
        property: otherCase.propertyId,
        email: email.toLowerCase(),
        version: 1,
      },
      {
        account: 'linked',
        partner: other.id,
        property: otherPartner.propertyId,
        email: email.toUpperCase(),
        version: 1,
      },
      { account: 'linked', partner: partner.id, property: first.propertyId, email, version: 2 },
      // Sponsored again after the sponsorship ended: the same property, the next version.
      { account: 'linked', partner: partner.id, property: first.propertyId, email, version: 3 },
    ]);
    expect(events.map((event) => event.version)).toEqual([1, 1, 1, 2, 3]);
  });
});

describe('events sent', () => {
  it('lists by host with --host, from a time with --since, both together, and as a table', async () => {
    // Prepare: two hosts, a moment apart.
    const earlier = await sponsoredProperty(partner.id);
    const between = now();
    const later = await sponsoredProperty(partner.id);
    const hosts = [earlier.hostUserId, later.hostUserId];
    const about = (events: SentEvent[]) => events.filter((event) => hosts.includes(event.host_user_id));

    // Act
    const lastDay = (await adminJson('events', 'sent')) as { events: SentEvent[]; more: boolean };
    const since = await sentEvents('--since', between);
    const ofEarlier = await sentEvents('--host', String(earlier.hostUserId));
    const ofEarlierSince = await sentEvents('--host', String(earlier.hostUserId), '--since', between);
    const ofLaterSince = await sentEvents('--host', String(later.hostUserId), '--since', between);
    const nobody = await admin('events', 'sent', '--host', '999999999');
    const text = await admin('events', 'sent', '--host', String(later.hostUserId));

    // Assess
    // Without options, the last 24 hours (oldest first, at most 1,000: the suite may have sent more).
    const dayAgo = new Date(Date.now() - 24 * 3_600_000 - 60_000).toISOString();
    expect(lastDay.events.every((event) => event.time >= dayAgo)).toBe(true);
    if (!lastDay.more) expect(about(lastDay.events).map((event) => event.host_user_id)).toEqual(hosts);
    expect(about(since).map((event) => event.host_user_id)).toEqual([later.hostUserId]);
    expect(since.every((event) => event.time >= between)).toBe(true);
    expect(ofEarlier.map((event) => [event['detail-type'], event.host_user_id])).toEqual([
      ['HostProvisioned', earlier.hostUserId],
    ]);
    expect(ofEarlierSince).toEqual([]);
    expect(ofLaterSince.map((event) => event.host_user_id)).toEqual([later.hostUserId]);
    expect(nobody).toMatchObject({ code: 0, stdout: 'No events sent about host 999999999.' });
    const [header, row] = text.stdout.split('\n');
    expect(header).toMatch(/^TIME\s+TYPE\s+VERSION\s+HOST\s+PROPERTY\s+EVENT ID\s+SENT$/);
    expect(row).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\s+HostProvisioned\\s+1\\s+${later.hostUserId}\\s+${later.propertyId}\\s+${ofLaterSince[0]?.id}\\s+(waiting|\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC)$`,
      ),
    );
  });

  it('refuses a malformed --since or --host with exit 2 before it looks for a server', async () => {
    // No server in this folder: a command that contacted anything would fail with exit 1.
    const empty = await mkdtemp(join(folder, 'no-server-'));

    const [since, host] = await Promise.all([
      adminProcess(empty, ['events', 'sent', '--since', 'last week'], 60_000),
      adminProcess(empty, ['events', 'sent', '--host', '12a'], 60_000),
    ]);

    expect(since).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(
        /^Usage error: --since must be an ISO 8601 date or date-time with a zone, like 2026-11-01 or 2026-11-01T09:30:00Z; got "last week"\.\nTry "npm run admin -- events sent --help"/,
      ),
    });
    expect(host).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^Usage error: --host must be an integer from 1 to \d+; got "12a"\./),
    });
  });
});

describe('events resend', () => {
  it('puts a host’s events on the outbound bus again, as the pipe did, and audits it', async () => {
    // Prepare: a host provisioned, its event delivered once.
    const host = { email: `resend.${tag()}@example.com`, name: 'Resend Inn', pmsHotelId: `RES-${tag()}` };
    await new HostBrowser('en').activate(await linkFor(host), PRODUCTS);
    const hostUserId = (await getHostIdByEmail(host.email)) ?? 0;
    const [event] = await sentEvents('--host', String(hostUserId));
    if (!event) throw new Error('No HostProvisioned listed');
    await inbox.until(event.id, 10_000);

    // Act
    const run = await admin('events', 'resend', '--host', String(hostUserId), '--json');

    // Assess: the same event (its event_id and detail) reaches the platform a second time.
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ resent: 1, erased: 0, more: false });
    const deadline = Date.now() + 10_000;
    while (inbox.about(event.id).length < 2 && Date.now() < deadline) await inbox.receive(1);
    const copies = inbox.about(event.id);
    expect(copies).toHaveLength(2);
    expect(copies[1]).toMatchObject({
      source: 'partner-api',
      'detail-type': 'HostProvisioned',
      detail: event.detail,
    });
    const audit = await adminJson('audit', 'list', '--action', 'events.resent');
    expect(JSON.stringify(audit)).toContain(`"host":${hostUserId}`);
  });
});

describe('an erasure', () => {
  it('leaves the host’s events with ids only, nothing of the host in the table, and says HostErased once', async () => {
    // Prepare: a host who finished the wizard in German, every answer marked with this test's tag.
    const mark = tag();
    const host = {
      email: `erase.${mark}@gasthaus.example`,
      name: `Gasthaus Kontakt ${mark}`,
      pmsHotelId: `ERASE-${tag()}`,
    };
    const browser = new HostBrowser('de');
    const onboarding = await browser.activate(await linkFor(host), PRODUCTS);
    const { typed } = await browser.finishWizard(onboarding, PRODUCTS, `Gasthaus ${mark}`);
    // Everything the host gave: each holds the tag, and is looked for whole too.
    const personal = [host.email, host.name, ...typed];
    const hostId = String(await getHostIdByEmail(host.email));
    const submitted = await untilListed(
      () => sentEvents('--host', hostId),
      (events) => events.length === 2 && events.every((event) => event.sent_at !== null),
      15_000,
      'the host’s two events are taken for delivery',
    );
    expect(submitted.map((event) => event['detail-type'])).toEqual([
      'HostProvisioned',
      'KnowledgeBaseSubmitted',
    ]);
    expect(typed.length).toBeGreaterThan(4);
    for (const text of typed) expect(JSON.stringify(submitted)).toContain(text);
    const requestedAt = now();
    const erasure: PlatformEvent = {
      type: 'HostErasureRequested',
      detail: { host_user_id: Number(hostId), requested_at: requestedAt },
    };

    // Act
    await publish(erasure);

    // Assess: events sent, as an operator's own `npm run admin` prints it.
    const shown = await adminProcess(
      inject('localDirectory'),
      ['events', 'sent', '--host', hostId, '--json'],
      60_000,
    );
    expect(shown.code, shown.stderr).toBe(0);
    const events = (JSON.parse(shown.stdout) as { events: SentEvent[] }).events;
    expect(events.map((event) => event['detail-type'])).toEqual([
      'HostProvisioned',
      'KnowledgeBaseSubmitted',
      'HostErased',
    ]);
    const [first, second, erased] = events as [SentEvent, SentEvent, SentEvent];
    for (const [event, before] of [
      [first, submitted[0]],
      [second, submitted[1]],
    ] as const) {
      expect(event).toEqual({
        ...before,
        detail: {
          event_id: before?.id,
          host_user_id: Number(hostId),
          property_id: before?.property_id,
          partner_id: partner.id,
          version: 1,
        },
        erased_at: expect.any(String),
      });
      expect(event.erased_at && event.erased_at >= requestedAt).toBe(true);
    }
    expectContractEvent(erased);
    expect(erased).toMatchObject({ version: null, property_id: null, erased_at: null });
    expect(erased.detail).toEqual({
      event_id: erased.id,
      host_user_id: Number(hostId),
      requested_at: requestedAt,
      erased_at: erased.time,
    });
    const table = await admin('events', 'sent', '--host', hostId);
    expect(table.stdout.split('\n').filter((line) => / erased \d{4}-/.test(line))).toHaveLength(2);
    for (const output of [shown.stdout, table.stdout])
      for (const text of [mark, ...personal]) expect(output.toLowerCase()).not.toContain(text.toLowerCase());

    // Nothing in the whole table holds the host's address, name or answers.
    const holding = (await scanAll()).filter((item) => {
      const stored = JSON.stringify(item).toLowerCase();
      return stored.includes(mark) || personal.some((text) => stored.includes(text.toLowerCase()));
    });
    expect(holding).toEqual([]);

    // HostErased reaches the platform once, however often the request comes.
    await inbox.until(erased.id, 15_000);
    await publish(erasure);
    const sentinel = await sponsoredProperty(partner.id);
    const [sentinelEvent] = await sentEvents('--host', String(sentinel.hostUserId));
    // Delivered in commit order: once the sentinel is in, anything the second request wrote is too.
    await inbox.until(sentinelEvent?.id ?? '', 15_000);
    expect(
      inbox
        .messages()
        .filter(
          (message) =>
            message['detail-type'] === 'HostErased' && message.detail.host_user_id === Number(hostId),
        ),
    ).toEqual([expect.objectContaining({ source: 'partner-api', detail: erased.detail })]);
    expect(ofType(await sentEvents('--host', hostId), 'HostErased')).toHaveLength(1);
  });
});

describe('a delivery that fails between the commit and the platform', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('loses nothing: the event waits in the outbox, and is delivered once the enrichment works again', async () => {
    // Prepare: a server of its own (its terminal says what the pipe does), its enrichment denied.
    server = await startServerProcess({}, { accessLog: true, startupTimeoutMs: 180_000 });
    const running = server;
    const aws = { endpoint: running.runtime.awsEndpoint, secretAccessKey: running.runtime.secretAccessKey };
    // Where the banner says the platform reads.
    const inboxUrl = /the SQS queue (\S+)/.exec(running.output())?.[1] ?? '';
    const platform = new PlatformInbox(aws, inboxUrl);
    const hold = await holdEnrichment(aws, { policyName: 'test-enrichment-dies' });
    const email = `held.${tag()}@example.com`;
    const sent = async () =>
      (
        (await running.admin('events', 'sent', '--since', new Date(Date.now() - 60_000).toISOString()))
          .events as SentEvent[]
      ).filter((event) => event.detail.contact_email === email);
    try {
      const link = await running.admin(
        'links',
        'create',
        '--partner',
        'demo-pms',
        '--email',
        email,
        '--name',
        'Held Cottage',
        '--pms-hotel-id',
        `HELD-${tag()}`,
        '--products',
        'assistant',
      );
      const outputBefore = running.output().length;

      // Act: a provisioning commits while the enrichment fails.
      await new HostBrowser().activate(String(link.url), ['assistant']);

      // Assess: the pipe tried it and was refused...
      const refusal =
        /outbound pipe: the enrichment failed \(.*not authorized to perform: dynamodb:UpdateItem/;
      const deadline = Date.now() + 30_000;
      while (!refusal.test(running.output().slice(outputBefore))) {
        if (Date.now() > deadline) throw new Error(`The pipe did not try the event: ${running.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // ...so the event waits, in `events sent` and nowhere else.
      const [waiting] = await sent();
      expect(waiting).toMatchObject({ 'detail-type': 'HostProvisioned', sent_at: null, erased_at: null });
      const text = await adminProcess(
        running.directory,
        ['events', 'sent', '--host', String(waiting?.host_user_id)],
        60_000,
      );
      expect(text.stdout).toMatch(new RegExp(`${waiting?.id}\\s+waiting$`, 'm'));
      await platform.receive(1);
      expect(platform.about(waiting?.id ?? '')).toEqual([]);

      // Act: the enrichment works again.
      await hold.release();

      // Assess: delivered, once, with what was committed.
      const [delivered] = await untilListed(
        sent,
        (events) => events[0]?.sent_at !== null,
        15_000,
        'the waiting event is taken for delivery',
      );
      expect(delivered).toEqual({ ...waiting, sent_at: expect.any(String) });
      expect(await platform.until(waiting?.id ?? '', 15_000)).toEqual([
        expect.objectContaining({ 'detail-type': 'HostProvisioned', detail: waiting?.detail }),
      ]);
      expectContractEvent(delivered as SentEvent);
    } finally {
      await hold.release();
      platform.close();
    }
  }, 300_000);
});
