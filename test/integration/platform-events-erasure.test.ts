import { describe, expect, it } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { getHost, getHostIdByEmail } from '../../lambdas/data/hosts';
import { saveAnswers } from '../../lambdas/data/knowledge-base';
import { applyPlatformEvent } from '../../lambdas/events/apply-event';
import type { AnyWizardStep } from '../../lambdas/pages/wizard-step';
import { WIZARD_STEPS } from '../../lambdas/pages/wizard-steps';
import { createActivationLink } from '../../operations/links';
import { admin, adminJson } from '../support/cli';
import { approvedPartner, sponsoredProperty, testTarget } from '../support/partners';
import {
  at,
  failedEventsAbout,
  partner,
  preparePlatformEvents,
  propertyIds,
  publish,
  racing,
  usageOf,
} from '../support/platform-events';
import { scanAll } from '../support/scan';

preparePlatformEvents();

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
