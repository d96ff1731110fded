import { describe, expect, it } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { getPropertyOfPartner } from '../../lambdas/data/properties';
import { provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { applyPlatformEvent } from '../../lambdas/events/apply-event';
import type { WizardContext } from '../../lambdas/pages/wizard-step';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';
import {
  at,
  partner,
  preparePlatformEvents,
  propertyIds,
  publish,
  racing,
  seatsOfHost,
  usageOf,
} from '../support/platform-events';

preparePlatformEvents();

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
