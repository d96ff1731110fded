import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_EXAMPLES } from '../../asyncapi/examples';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { MAX_CHANNELS_PER_MONTH } from '../../core/domain/reservations';
import { serviceConfig } from '../../lambdas/common/config';
import { dynamoDb } from '../../lambdas/data/db';
import { RefusedEventError } from '../../lambdas/data/event-versions';
import { getHost, getHostIdByEmail } from '../../lambdas/data/hosts';
import { saveAnswers } from '../../lambdas/data/knowledge-base';
import { getPropertyOfPartner } from '../../lambdas/data/properties';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { applyPlatformEvent, applyReservationEvents } from '../../lambdas/events/apply-event';
import type { AnyWizardStep, WizardContext } from '../../lambdas/pages/wizard-step';
import { WIZARD_STEPS, wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { eventsApplied } from '../../operations/events';
import { createActivationLink } from '../../operations/links';
import { admin, adminJson } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty, testTarget } from '../support/partners';
import { startServerProcess } from '../support/processes';
import { scanAll } from '../support/scan';

/*
 * The platform's events through `npm run admin -- events publish` on the suite's local server, as
 * docs/design/events.md has them: each row of the contract changes the API as stated, duplicates
 * and older versions change nothing, and an event that cannot apply is listed by `events failed`
 * with its reason while the rest of its file applies.
 */

let folder: string;
let partner: TestPartner;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'platform-events-'));
  partner = await approvedPartner({ products: ['assistant', 'upsells', 'guidebook'] });
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const line = (event: PlatformEvent) => JSON.stringify({ 'detail-type': event.type, detail: event.detail });

/** `events publish --file … --wait`: the events sent and applied (or dead-lettered). */
async function publish(...events: PlatformEvent[]) {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.jsonl`);
  await writeFile(file, `${events.map(line).join('\n')}\n`);
  const published = await admin('events', 'publish', '--file', file, '--wait', '--json');
  const result = JSON.parse(published.stdout);
  expect(result).toMatchObject({ accepted: events.length, applied: true });
  // A file that did not apply whole is a failure a script sees.
  expect(published.code).toBe(result.refused > 0 ? 1 : 0);
  return result;
}

async function usageOf(key: string) {
  const { status, json } = await apiGet('/usage', key);
  expect(status).toBe(200);
  return json as { active_seats: number; hosts: { host_user_id: number; active_seats: number }[] };
}

const seatsOfHost = async (key: string, hostId: number) =>
  (await usageOf(key)).hosts.find((host) => host.host_user_id === hostId)?.active_seats;

async function propertyIds(key: string, query = '') {
  const { status, json } = await apiGet(`/properties${query}`, key);
  expect(status).toBe(200);
  return (json.properties as { id: number; name: string }[]).map((property) => property.id);
}

async function failedEventsAbout(propertyOrHost: { key: string; id: number }) {
  const { events } = (await adminJson('events', 'failed')) as {
    events: {
      detail_type: string;
      detail: Record<string, unknown>;
      reason: string;
      event_id: string | null;
    }[];
  };
  return events.filter((event) => event.detail[propertyOrHost.key] === propertyOrHost.id);
}

/**
 * Runs `act` while a second writer does `meanwhile` once, right before (or right after) the first
 * DynamoDB transaction whose request holds every marker: a race, made to happen every time.
 */
async function racing<T>(
  race: { markers: string[]; timing: 'before' | 'after'; meanwhile: () => Promise<unknown> },
  act: () => Promise<T>,
): Promise<{ result: T; meanwhile: unknown }> {
  let meanwhile: { outcome: unknown } | undefined;
  const name = `race-${Math.random()}`;
  const run = async () => {
    meanwhile = { outcome: undefined };
    meanwhile.outcome = await race.meanwhile().catch((error: unknown) => error);
  };
  dynamoDb().middlewareStack.add(
    (next) => async (args) => {
      const input = JSON.stringify(args.input);
      const matches =
        meanwhile === undefined &&
        input.includes('TransactItems') &&
        race.markers.every((marker) => input.includes(marker));
      if (matches && race.timing === 'before') await run();
      const output = await next(args);
      if (matches && race.timing === 'after') await run();
      return output;
    },
    { step: 'initialize', name },
  );
  try {
    const result = await act();
    expect(meanwhile, 'the race did not happen').toBeDefined();
    return { result, meanwhile: meanwhile?.outcome };
  } finally {
    dynamoDb().middlewareStack.remove(name);
  }
}

/** Now (to the millisecond, as the platform may send it), or minutes from now. */
const at = (offsetMinutes = 0) => new Date(Date.now() + offsetMinutes * 60_000).toISOString();

describe('seats', () => {
  it('follow SeatActivated and SeatDeactivated; duplicates and older versions change nothing', async () => {
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { products: ['assistant'] });
    const before = await usageOf(partner.key);
    const seat = (
      type: 'SeatActivated' | 'SeatDeactivated',
      product: string,
      version: number,
    ): PlatformEvent => ({
      type,
      detail: { property_id: propertyId, product_id: product, version, occurred_at: at() },
    });

    await publish(seat('SeatActivated', 'upsells', 1), seat('SeatActivated', 'guidebook', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(3);
    expect((await usageOf(partner.key)).active_seats).toBe(before.active_seats + 2);

    const off = seat('SeatDeactivated', 'upsells', 2);
    await publish(off, off, seat('SeatActivated', 'upsells', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);

    // The product the host activated through its link, switched off by the platform.
    await publish(seat('SeatDeactivated', 'assistant', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);
    // The host had its one seat when `before` was read, and has one again.
    expect((await usageOf(partner.key)).active_seats).toBe(before.active_seats);
  });

  it('end in the state of the highest version, whatever the order of delivery', async () => {
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { products: ['assistant'] });
    const seat = (type: 'SeatActivated' | 'SeatDeactivated', version: number): PlatformEvent => ({
      type,
      detail: { property_id: propertyId, product_id: 'guidebook', version, occurred_at: at() },
    });

    // Version 3 (off) arrives first; versions 1 (on) and 2 (on) after it change nothing.
    await publish(seat('SeatDeactivated', 3));
    await publish(seat('SeatActivated', 2), seat('SeatActivated', 1));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);
    await publish(seat('SeatActivated', 4));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
  });

  it('dead-letters a seat outside the agreement, with the reason, while the rest of the file applies', async () => {
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { products: ['assistant'] });

    const other = await sponsoredProperty(partner.id, { products: ['assistant'] });

    // Another file published at the same time, which applies whole: its refusals are its own.
    const [result, otherResult] = await Promise.all([
      publish(
        {
          type: 'SeatActivated',
          detail: { property_id: propertyId, product_id: 'checkin', version: 1, occurred_at: at() },
        },
        {
          type: 'SeatActivated',
          detail: { property_id: propertyId, product_id: 'upsells', version: 1, occurred_at: at() },
        },
      ),
      publish({
        type: 'SeatActivated',
        detail: { property_id: other.propertyId, product_id: 'upsells', version: 1, occurred_at: at() },
      }),
    ]);

    expect(result.refused).toBe(1);
    expect(otherResult.refused).toBe(0);
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
    const [failed, ...others] = await failedEventsAbout({ key: 'property_id', id: propertyId });
    expect(others).toEqual([]);
    expect(failed?.detail_type).toBe('SeatActivated');
    expect(failed?.reason).toContain(`checkin is not in the agreement of partner ${partner.id}`);
  });
});

describe('seats, against what happens meanwhile', () => {
  it('stay on when the host chooses the product again while an older switch-off is being applied', async () => {
    // Prepare: the platform switches the seat off; the host chooses it again through a link right
    // after, between the consumer's read of the seat and its write.
    const host = {
      partnerId: partner.id,
      contactEmail: `chosen-again-${Date.now()}@example.com`,
      contactName: 'Chosen Again',
      pmsHotelId: `AGAIN-${Date.now()}`,
      propertyName: 'Chosen Again',
      productIds: ['guidebook' as const],
    };
    const { propertyId, hostUserId } = await provisionSponsoredHost({ ...host, nowMs: Date.now() });
    const switchedOff = at();

    // Act
    await racing(
      {
        markers: ['changedAt'],
        timing: 'before',
        meanwhile: () => provisionSponsoredHost({ ...host, nowMs: Date.parse(switchedOff) + 1 }),
      },
      () =>
        applyPlatformEvent(
          {
            type: 'SeatDeactivated',
            detail: {
              property_id: propertyId,
              product_id: 'guidebook',
              version: 1,
              occurred_at: switchedOff,
            },
          },
          Date.now(),
          Date.now() + 60_000,
        ),
    );

    // Assess
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);
  });
});

describe('properties', () => {
  it('take their name and units from PropertyUpdated, each field at its greatest version', async () => {
    const { propertyId } = await sponsoredProperty(partner.id, { name: 'Old Mill' });
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

    await publish(
      { type: 'PropertyUpdated', detail: { property_id: propertyId, version: 3, name: 'The Old Mill' } },
      { type: 'PropertyUpdated', detail: { property_id: propertyId, version: 2, name: 'Mill', units: 4 } },
      {
        type: 'ReservationChanged',
        detail: {
          property_id: propertyId,
          version: 1,
          reservation: {
            id: 'R-1',
            channel: 'Direct',
            booked_at: at(-60),
            check_in: today,
            check_out: tomorrow,
            status: 'confirmed',
          },
        },
      },
    );

    const { json } = await apiGet('/properties', partner.key);
    const names = json.properties as { id: number; name: string }[];
    expect(names.find((property) => property.id === propertyId)?.name).toBe('The Old Mill');
    const signals = await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key);
    expect((signals.json.signals as { occupancy_today: number }).occupancy_today).toBe(0.25);
  });
});

describe('reservations', () => {
  it('move pricing signals; a cancellation takes one out, and older versions change nothing', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    // Fixed once, so that the duplicates below are the same event to the millisecond.
    const bookedAt = at(-24 * 60);
    const checkIn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const checkOut = new Date(Date.now() + 13 * 86_400_000).toISOString().slice(0, 10);
    const reservation = (id: string, status: 'confirmed' | 'cancelled') => ({
      id,
      channel: 'Airbnb',
      booked_at: bookedAt,
      check_in: checkIn,
      check_out: checkOut,
      status,
    });
    const changed = (version: number, id: string, status: 'confirmed' | 'cancelled'): PlatformEvent => ({
      type: 'ReservationChanged',
      detail: { property_id: propertyId, version, reservation: reservation(id, status) },
    });
    const total = async () =>
      (
        (await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key)).json.signals as {
          total_reservations: number;
        }
      ).total_reservations;

    await publish(changed(1, 'A', 'confirmed'), changed(1, 'B', 'confirmed'), changed(1, 'B', 'confirmed'));
    expect(await total()).toBe(2);
    await publish(changed(2, 'A', 'cancelled'), changed(1, 'A', 'confirmed'));
    expect(await total()).toBe(1);
  });

  it('of one property, delivered together, end as one by one: duplicates, disagreements and the channel cap', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    // Fixed once: two events meant to be the same must not differ by the millisecond they were made in.
    const bookedAt = at(-24 * 60);
    const checkIn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const checkOut = new Date(Date.now() + 12 * 86_400_000).toISOString().slice(0, 10);
    const changed = (version: number, id: string, channel: string): PlatformEvent => ({
      type: 'ReservationChanged',
      detail: {
        property_id: propertyId,
        version,
        reservation: {
          id,
          channel,
          booked_at: bookedAt,
          check_in: checkIn,
          check_out: checkOut,
          status: 'confirmed',
        },
      },
    });
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => `Channel ${index}`);
    await publish(...channels.map((channel, index) => changed(1, `full-${index}`, channel)));

    await publish(
      changed(1, 'over', 'One channel too many'),
      changed(1, 'late', 'Channel 3'),
      changed(2, 'late', 'One channel too many'),
      changed(1, 'twice', 'Channel 1'),
      changed(1, 'twice', 'Channel 2'),
      changed(1, 'again', 'Channel 4'),
      changed(1, 'again', 'Channel 4'),
    );

    const signals = (await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key)).json.signals as {
      total_reservations: number;
      source_mix: Record<string, number>;
    };
    // The full month, `late` at its first version, the first `twice` and `again` once.
    expect(signals.total_reservations).toBe(MAX_CHANNELS_PER_MONTH + 3);
    expect(Object.keys(signals.source_mix).sort()).toEqual([...channels].sort());
    const failed = await failedEventsAbout({ key: 'property_id', id: propertyId });
    const reasons = failed.map((event) => {
      const { reservation } = event.detail as { reservation: { id: string; channel: string } };
      return `${reservation.id} ${reservation.channel}: ${event.reason}`;
    });
    const overCap = `ReservationChanged cannot be applied: property ${propertyId} would have ${MAX_CHANNELS_PER_MONTH + 1} booking channels in ${bookedAt.slice(0, 7)}; at most ${MAX_CHANNELS_PER_MONTH} are allowed per property and month.`;
    expect(reasons.sort()).toEqual([
      `late One channel too many: ${overCap}`,
      `over One channel too many: ${overCap}`,
      expect.stringMatching(/^twice Channel 2: .*two events of one version disagree\.$/),
    ]);
  });
});

describe('sponsorships', () => {
  it('end for one partner only: its usage, properties (pages being walked too) and signals; other partners keep the host', async () => {
    const other = await approvedPartner();
    const email = `shared-${Date.now()}@example.com`;
    const first = await sponsoredProperty(partner.id, { email });
    const second = await sponsoredProperty(partner.id, { email });
    const elsewhere = await sponsoredProperty(other.id, { email });
    expect(first.hostUserId).toBe(elsewhere.hostUserId);
    // A walk through the pages that started before the ending.
    const firstPage = await apiGet('/properties?limit=1', partner.key);
    const next = /<([^>]+)>; rel="next"/.exec(firstPage.headers.get('link') ?? '')?.[1] ?? '';

    await publish({
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: first.hostUserId, version: 1, occurred_at: at() },
    });

    expect((await usageOf(partner.key)).hosts.map((host) => host.host_user_id)).not.toContain(
      first.hostUserId,
    );
    expect(await propertyIds(partner.key)).not.toContain(first.propertyId);
    const walked: number[] = [];
    for (let page = next; page; ) {
      const answer = await apiGet(page.replace(/^.*\/partner-api\/v1/, ''), partner.key);
      walked.push(...(answer.json.properties as { id: number }[]).map((property) => property.id));
      page = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1] ?? '';
    }
    expect(walked).not.toContain(second.propertyId);
    expect((await apiGet(`/properties/${first.propertyId}/pricing-signals`, partner.key)).status).toBe(404);
    expect(await seatsOfHost(other.key, elsewhere.hostUserId)).toBe(1);
    expect(await propertyIds(other.key)).toContain(elsewhere.propertyId);
  });

  it('starts again with a later activation link from the partner; the old ending delivered again changes nothing', async () => {
    const email = `returning-${Date.now()}@example.com`;
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { email });
    const ended: PlatformEvent = {
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: hostUserId, version: 1, occurred_at: at() },
    };
    await publish(ended);
    expect(await propertyIds(partner.key)).not.toContain(propertyId);

    const again = await sponsoredProperty(partner.id, { email, products: ['upsells'] });
    await publish(ended);

    expect(again.hostUserId).toBe(hostUserId);
    expect(await propertyIds(partner.key)).toEqual(expect.arrayContaining([propertyId, again.propertyId]));
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
  });

  it('ignores an ending that occurred before the host was sponsored again, even delivered after', async () => {
    const email = `late-${Date.now()}@example.com`;
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { email });
    await sponsoredProperty(partner.id, { email });

    await publish({
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: hostUserId, version: 1, occurred_at: at(-60) },
    });

    expect(await propertyIds(partner.key)).toContain(propertyId);
  });
});

describe('sponsorships, against what happens meanwhile', () => {
  /** A host with two properties under the partner, and the ending of its sponsorship. */
  async function hostWithTwoProperties() {
    const email = `two-properties-${Date.now()}@example.com`;
    const pmsHotelId = `TWO-${Date.now()}`;
    const host = {
      partnerId: partner.id,
      contactEmail: email,
      contactName: 'Two',
      productIds: ['assistant' as const],
    };
    const first = await provisionSponsoredHost({
      ...host,
      pmsHotelId,
      propertyName: 'Two A',
      nowMs: Date.now(),
    });
    const second = await sponsoredProperty(partner.id, { email });
    const ending = (version: number, occurredAt: string): PlatformEvent => ({
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: first.hostUserId, version, occurred_at: occurredAt },
    });
    const apply = (event: PlatformEvent) => applyPlatformEvent(event, Date.now(), Date.now() + 60_000);
    const sponsorAgain = (nowMs: number) =>
      provisionSponsoredHost({ ...host, pmsHotelId, propertyName: 'Two A', nowMs });
    return { first, second, ending, apply, sponsorAgain };
  }

  it('gives back every property when an older ending lands while the host is sponsored again', async () => {
    // Prepare
    const { first, second, ending, apply, sponsorAgain } = await hostWithTwoProperties();

    // Act: provisioning read the sponsorship as active; an ending from before it lands, then it commits.
    await racing(
      { markers: ['lastProvisionedAt'], timing: 'before', meanwhile: () => apply(ending(1, at())) },
      () => sponsorAgain(Date.now() + 60_000),
    );

    // Assess
    expect(await seatsOfHost(partner.key, first.hostUserId)).toBeDefined();
    expect(await propertyIds(partner.key)).toEqual(
      expect.arrayContaining([first.propertyId, second.propertyId]),
    );
  });

  it('saves neither the name nor the answers of a wizard step once the sponsorship has ended', async () => {
    // Prepare: the page checked the sponsorship; it ends before the step's save.
    const { first, ending, apply } = await hostWithTwoProperties();
    await apply(ending(1, at()));
    const details = wizardStepsFor(['assistant']).find((step) => step.id === 'details');
    const context = {
      session: { partnerId: partner.id, provisioned: { propertyId: first.propertyId } },
      propertyName: 'Two A',
      knowledgeBase: { answers: {} },
    } as unknown as WizardContext;

    // Act
    const saved = await details
      ?.save({ propertyName: 'Renamed after the end', checkInInstructions: 'Key box' }, context, at())
      .catch((error: unknown) => error);

    // Assess
    expect(saved).toMatchObject({ name: 'PropertyNotSponsoredError' });
    const property = await getPropertyOfPartner(partner.id, first.propertyId, {
      consistent: true,
      includeEnded: true,
    });
    expect(property?.name).toBe('Two A');
  });

  it('hides every property when a newer ending lands right after the host was sponsored again', async () => {
    // Prepare
    const { first, second, ending, apply, sponsorAgain } = await hostWithTwoProperties();
    await apply(ending(1, at()));

    // Act: the provisioning that sponsors the host again commits; an ending after it lands at once.
    await racing(
      { markers: ['lastProvisionedAt'], timing: 'after', meanwhile: () => apply(ending(2, at(2))) },
      () => sponsorAgain(Date.now() + 60_000),
    );

    // Assess
    expect(await seatsOfHost(partner.key, first.hostUserId)).toBeUndefined();
    const visible = await propertyIds(partner.key);
    expect(visible).not.toContain(first.propertyId);
    expect(visible).not.toContain(second.propertyId);
  });
});

describe('erasure', () => {
  it('deletes what names the host, ends its sponsorships and unused links, and a new link makes a new account', async () => {
    const other = await approvedPartner();
    const email = `erase-me-${Date.now()}@example.com`;
    const name = `Erasable Host ${Date.now()}`;
    const mine = await sponsoredProperty(partner.id, { email, name });
    const theirs = await sponsoredProperty(other.id, { email, name });
    await publish({
      type: 'ReservationChanged',
      detail: {
        property_id: mine.propertyId,
        version: 1,
        reservation: {
          id: 'E-1',
          channel: 'Direct',
          booked_at: at(-60),
          check_in: '2027-01-01',
          check_out: '2027-01-03',
          status: 'confirmed',
        },
      },
    });
    const unused = await createActivationLink(
      testTarget(),
      { slug: partner.slug, email, name, pmsHotelId: 'E-NEW', products: ['assistant'], ttlSeconds: 3_600 },
      Date.now(),
    );
    // What the host gave the wizard, every step's under its own attribute, names the host too.
    for (const step of WIZARD_STEPS as readonly AnyWizardStep[])
      if (step.attribute)
        await saveAnswers(
          { partnerId: partner.id, propertyId: mine.propertyId },
          { attribute: step.attribute, value: `${step.id} of ${name}` },
          at(),
        );

    const erasure: PlatformEvent = {
      type: 'HostErasureRequested',
      detail: { host_user_id: mine.hostUserId, requested_at: at() },
    };
    await publish(erasure, erasure);

    for (const [key, property] of [
      [partner.key, mine],
      [other.key, theirs],
    ] as const) {
      expect((await usageOf(key)).hosts.map((host) => host.host_user_id)).not.toContain(mine.hostUserId);
      expect(await propertyIds(key)).not.toContain(property.propertyId);
    }
    expect(await getHost(mine.hostUserId)).toBeUndefined();
    expect(await getHostIdByEmail(email)).toBeUndefined();
    const Items = await scanAll();
    const holding = Items.filter((item) => {
      const text = JSON.stringify(item).toLowerCase();
      return text.includes(email.toLowerCase()) || text.includes(name.toLowerCase());
    });
    expect(holding).toEqual([]);
    const opened = await fetch(unused.url, { redirect: 'manual' });
    expect(opened.status).toBe(410);
    const listed = (await adminJson('links', 'list', '--partner', partner.slug)) as {
      links: { nonce: string; state: string; host_email: string; pms_hotel_id: string; used_at: unknown }[];
    };
    expect(listed.links.find((link) => link.nonce === unused.nonce)).toMatchObject({
      state: 'withdrawn',
      host_email: '(erased)',
      pms_hotel_id: '(erased)',
      used_at: null,
    });
    const table = await admin('links', 'list', '--partner', partner.slug);
    expect(table.stdout.split('\n').find((row) => row.startsWith(unused.nonce))).toMatch(
      /\(erased\)\s+\(erased\)\s+assistant\s+\S+ \S+ UTC\s+withdrawn \S+ \S+ UTC \(host erased\)$/,
    );
    const { events } = (await adminJson(
      'audit',
      'list',
      '--partner',
      partner.slug,
      '--action',
      'host.erased',
    )) as {
      events: { host_id: number }[];
    };
    expect(events.map((event) => event.host_id)).toEqual([mine.hostUserId]);

    const reborn = await sponsoredProperty(partner.id, { email });
    expect(reborn.hostUserId).not.toBe(mine.hostUserId);
    // Events about the erased host's property change nothing, and wait nowhere.
    await publish({
      type: 'PropertyUpdated',
      detail: { property_id: mine.propertyId, version: 9, name: 'Back?' },
    });
    expect(await failedEventsAbout({ key: 'property_id', id: mine.propertyId })).toEqual([]);
  });
});

describe('erasure, against what happens meanwhile', () => {
  it('refuses a request made before the account existed, even published within seconds of it', async () => {
    // Prepare: ids are counters, so a request meant for no one (or a wrong id) names the newest host.
    const requestedAt = new Date(Date.now() - 2_000).toISOString();
    const { hostUserId } = await sponsoredProperty(partner.id);

    // Act
    const refusal = await applyPlatformEvent(
      { type: 'HostErasureRequested', detail: { host_user_id: hostUserId, requested_at: requestedAt } },
      Date.now(),
      Date.now() + 60_000,
    ).catch((error: unknown) => error);

    // Assess
    expect(refusal).toMatchObject({
      name: 'RefusedEventError',
      message: expect.stringContaining(`after the erasure was requested (${requestedAt})`),
    });
    expect(await getHost(hostUserId)).toBeDefined();
  });

  it('lets no link for the address slip in between the sweep of its links and the tombstone', async () => {
    // Prepare: pause the erasure right before its decisive transaction, and ask for a link then.
    const email = `erase-race-${Date.now()}@example.com`;
    const { hostUserId } = await sponsoredProperty(partner.id, { email });
    const request = {
      slug: partner.slug,
      email,
      name: 'Race',
      pmsHotelId: 'RACE-1',
      products: ['assistant' as const],
      ttlSeconds: 3_600,
    };

    // Act
    const { meanwhile: during } = await racing(
      {
        markers: ['erasedAt'],
        timing: 'before',
        meanwhile: () => createActivationLink(testTarget(), request, Date.now()),
      },
      () =>
        applyPlatformEvent(
          { type: 'HostErasureRequested', detail: { host_user_id: hostUserId, requested_at: at() } },
          Date.now(),
          Date.now() + 60_000,
        ),
    );
    const after = await createActivationLink(testTarget(), request, Date.now());

    // Assess
    expect(during).toMatchObject({
      name: 'OperatorError',
      message: expect.stringContaining('is being erased'),
    });
    const Items = await scanAll();
    const naming = Items.filter((item) => JSON.stringify(item).includes(email));
    // What names the address now is the new link's listing only: it will make a new account.
    expect(naming).toEqual([expect.objectContaining({ SK: `LINK#${after.nonce}` })]);
  });
});

describe('failed events', () => {
  it('are refused before sending when a line breaks the contract, each bad line named (exit 2)', async () => {
    const file = join(folder, 'bad.jsonl');
    await writeFile(
      file,
      [
        line({
          type: 'SeatActivated',
          detail: { property_id: 1, product_id: 'assistant', version: 1, occurred_at: at() },
        }),
        '{"detail-type": "SeatExploded", "detail": {}}',
        '{"detail-type": "PropertyUpdated", "detail": {"property_id": 1, "version": 0}}',
        'not json',
        '{"detail-type": "HostErasureRequested", "source": "elsewhere", "time": "2001-01-01T00:00:00Z", "detail": {"host_user_id": 1, "requested_at": "2026-01-01T00:00:00Z"}}',
      ].join('\n'),
    );
    const huge = join(folder, 'huge.jsonl');
    await writeFile(huge, '');
    await truncate(huge, 3 * 1024 ** 3);

    const result = await admin('events', 'publish', '--file', file);
    const tooLarge = await admin('events', 'publish', '--file', huge);

    expect(tooLarge.code).toBe(2);
    expect(tooLarge.stderr).toContain('is larger than 50 MB; split it into several files.');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing was sent: 4 line(s)');
    expect(result.stderr).toContain(
      'line 5: "source", "time": a line holds only "detail-type" and "detail" (the source is always host-platform',
    );
    expect(result.stderr).toContain('line 2: detail-type "SeatExploded" is not one of SeatActivated');
    expect(result.stderr).toContain('line 3: detail.version: must be positive');
    expect(result.stderr).toContain('names no field to change');
    expect(result.stderr).toContain('line 4: not JSON');
  });

  it('are listed with their reasons and redriven; an event that applies after a fix leaves the list', async () => {
    const email = `late-sponsor-${Date.now()}@example.com`;
    const unknownProperty = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    await publish({
      type: 'SeatActivated',
      detail: { property_id: unknownProperty, product_id: 'assistant', version: 1, occurred_at: at() },
    });
    const [failed] = await failedEventsAbout({ key: 'property_id', id: unknownProperty });
    expect(failed?.reason).toContain(`no property ${unknownProperty}`);
    // The event's own id, which the consumer's log names too (the queue gives the message a new one).
    expect(failed?.event_id).toMatch(/^[0-9a-f-]{36}$/);
    const text = await admin('events', 'failed');
    expect(text.stdout).toContain('FAILED');
    expect(text.stdout).toContain(`no property ${unknownProperty}`);

    // A refusal that an operator fixes: the partner's agreement gains the product, then redrive.
    const narrow = await approvedPartner({ products: ['assistant'] });
    const { propertyId, hostUserId } = await sponsoredProperty(narrow.id, { email });
    await publish({
      type: 'SeatActivated',
      detail: { property_id: propertyId, product_id: 'upsells', version: 1, occurred_at: at() },
    });
    expect(await failedEventsAbout({ key: 'property_id', id: propertyId })).toHaveLength(1);
    expect(
      (await admin('partners', 'update', '--partner', narrow.slug, '--products', 'assistant,upsells')).code,
    ).toBe(0);

    const redrive = await adminJson('events', 'redrive');
    expect(redrive.moving).toBeGreaterThanOrEqual(2);
    expect(await eventsApplied(60_000)).toBe(true);

    expect(await failedEventsAbout({ key: 'property_id', id: propertyId })).toEqual([]);
    expect(await seatsOfHost(narrow.key, hostUserId)).toBe(2);
    expect(await failedEventsAbout({ key: 'property_id', id: unknownProperty })).toHaveLength(1);
  });
});

describe('events published before their entity existed', () => {
  // Ids are counters: an event refused as "no property 31" and redriven after property 31 was
  // created for another host would otherwise apply to that host. The envelope's `time` tells.
  it('are refused, erasure included, and the same events published after the entity apply', async () => {
    const email = `later-holder-${Date.now()}@example.com`;
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { email });
    const anHourAgo = at(-60);
    const seat: PlatformEvent = {
      type: 'SeatActivated',
      detail: { property_id: propertyId, product_id: 'upsells', version: 1, occurred_at: anHourAgo },
    };
    const booking = (id: string): PlatformEvent<'ReservationChanged'> => ({
      type: 'ReservationChanged',
      detail: {
        property_id: propertyId,
        version: 1,
        reservation: {
          id,
          channel: 'Direct',
          booked_at: anHourAgo,
          check_in: at(60 * 24).slice(0, 10),
          check_out: at(60 * 48).slice(0, 10),
          status: 'confirmed',
        },
      },
    });
    const erasure: PlatformEvent = {
      type: 'HostErasureRequested',
      detail: { host_user_id: hostUserId, requested_at: anHourAgo },
    };
    const ending: PlatformEvent = {
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: hostUserId, version: 1, occurred_at: at(60) },
    };
    const early = <T extends PlatformEvent>(event: T): T => ({ ...event, publishedAt: anHourAgo });

    const refusals = await Promise.all(
      [early(seat), early(erasure), early(ending)].map((event) =>
        applyPlatformEvent(event, Date.now(), Date.now() + 60_000).catch((error: unknown) => error),
      ),
    );
    const together = await applyReservationEvents(
      [early(booking('R-1')), booking('R-2')],
      propertyId,
      Date.now(),
    );

    expect(refusals).toEqual([
      expect.objectContaining({
        name: 'RefusedEventError',
        message: expect.stringMatching(
          new RegExp(
            `^property ${propertyId} was created at .+, after the event was published \\(${anHourAgo}\\): the event is not about it$`,
          ),
        ),
      }),
      expect.objectContaining({
        name: 'RefusedEventError',
        message: expect.stringMatching(
          new RegExp(`^host ${hostUserId} was created at .+: the event is not about it$`),
        ),
      }),
      expect.objectContaining({
        name: 'RefusedEventError',
        message: expect.stringMatching(
          new RegExp(
            `^the sponsorship of host ${hostUserId} by partner ${partner.id} was created at .+: the event is not about it$`,
          ),
        ),
      }),
    ]);
    expect(together[0]).toBeInstanceOf(RefusedEventError);
    expect(together[1]).toBe('applied');
    expect(await getHost(hostUserId)).toMatchObject({ email });
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);

    expect(await applyPlatformEvent({ ...seat, publishedAt: at() }, Date.now(), Date.now() + 60_000)).toBe(
      'applied',
    );
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
  });
});

describe('the local bus', () => {
  it('keeps the time a publisher gives PutEvents, as EventBridge does, so an early event is refused', async () => {
    // Prepare
    const config = serviceConfig();
    const bus = new EventBridgeClient({
      endpoint: config.local?.eventBridgeEndpoint,
      region: 'local',
      credentials: config.local?.credentials,
    });
    const { propertyId } = await sponsoredProperty(partner.id);

    // Act
    await bus.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: config.eventBusName,
            Source: 'host-platform',
            DetailType: 'PropertyUpdated',
            Detail: JSON.stringify({ property_id: propertyId, version: 1, name: 'Published long ago' }),
            Time: new Date('2001-01-01T00:00:00Z'),
          },
        ],
      }),
    );
    expect(await eventsApplied(30_000)).toBe(true);

    // Assess
    const [failed] = await failedEventsAbout({ key: 'property_id', id: propertyId });
    expect(failed?.reason).toContain('after the event was published (2001-01-01T00:00:00.000Z)');
  });
});

describe('the examples of the contract', () => {
  it('apply to the demo data of a fresh npm start as docs/examples/events.jsonl and docs/operators.md say', async () => {
    // A server of its own: the examples change the demo partner that other files read.
    const server = await startServerProcess();
    try {
      const demoKey = /Demo partner[^\n]*\n\s+(svc_\S+)/.exec(server.output())?.[1] ?? '';
      const get = async (path: string) =>
        (
          await fetch(`${server.runtime.apiBaseUrl}${path}`, {
            headers: { Authorization: `Bearer ${demoKey}` },
          })
        ).json();
      const before = (await get('/usage')) as { hosts: { host_user_id: number; active_seats: number }[] };

      const result = await server.admin(
        'events',
        'publish',
        '--file',
        'docs/examples/events.jsonl',
        '--wait',
      );

      expect(result).toMatchObject({
        accepted: Object.keys(EVENT_EXAMPLES).length,
        applied: true,
        dead_lettered: 0,
      });
      const after = (await get('/usage')) as {
        active_seats: number;
        hosts: { host_user_id: number; active_seats: number }[];
      };
      // Host 1 trades upsells for guidebook on property 1; host 2 is erased; host 3 leaves demo-pms.
      expect(after.hosts).toEqual([{ host_user_id: 1, active_seats: before.hosts[0]?.active_seats }]);
      const properties = (await get('/properties')) as { properties: { id: number; name: string }[] };
      expect(properties.properties).toEqual([
        { id: 1, name: 'Seaside Loft' },
        { id: 2, name: 'Harbour View Apartments & Spa' },
      ]);
    } finally {
      await server.stop();
    }
    // A server of its own (bundling, DynamoDB Local, the demo data): over a minute on a busy machine.
  }, 180_000);
});
