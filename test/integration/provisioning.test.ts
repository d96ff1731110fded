import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { getHost, getHostIdByEmail } from '../../lambdas/data/hosts';
import { listPropertiesOfPartner } from '../../lambdas/data/properties';
import type { ProvisioningRequest } from '../../lambdas/data/provisioning';
import { PropertyHeldByAnotherHostError, provisionSponsoredHost } from '../../lambdas/data/provisioning';
import { listActiveProductsOfProperty } from '../../lambdas/data/seats';
import { listSponsoredHostSeats } from '../../lambdas/data/sponsorships';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';

let partner: TestPartner;
beforeAll(async () => {
  partner = await approvedPartner();
});

function request(overrides: Partial<ProvisioningRequest> = {}): ProvisioningRequest {
  const suffix = randomBytes(4).toString('hex');
  return {
    partnerId: partner.id,
    contactEmail: `host-${suffix}@example.com`,
    contactName: `Host ${suffix}`,
    pmsHotelId: `PMS-${suffix}`,
    propertyName: `Property ${suffix}`,
    productIds: ['assistant', 'upsells'],
    nonce: { value: randomBytes(16).toString('base64url'), tokenExpiresAtMs: Date.now() + 3_600_000 },
    nowMs: Date.now(),
    ...overrides,
  };
}

async function seatsOf(hostUserId: number) {
  return (await listSponsoredHostSeats(partner.id)).find((host) => host.hostUserId === hostUserId)
    ?.activeSeats;
}

describe('provisioning transaction (DynamoDB Local)', () => {
  it('ten concurrent submits of one link provision exactly once and all see the same result', async () => {
    const shared = request();

    const results = await Promise.all(Array.from({ length: 10 }, () => provisionSponsoredHost(shared)));

    expect(results.filter((result) => !result.alreadyProvisioned)).toHaveLength(1);
    expect(new Set(results.map((result) => `${result.hostUserId}/${result.propertyId}`)).size).toBe(1);
    const [first] = results;
    expect(await seatsOf(first?.hostUserId ?? -1)).toBe(2);
    expect(
      (await listPropertiesOfPartner(partner.id)).filter((p) => p.id === first?.propertyId),
    ).toHaveLength(1);
  });

  it('a retry of a committed link (a timeout, a reload) returns the earlier work unchanged', async () => {
    const once = request();
    const first = await provisionSponsoredHost(once);

    const retry = await provisionSponsoredHost({
      ...once,
      productIds: ['assistant', 'upsells', 'guidebook', 'checkin'],
    });

    expect(retry).toEqual({ ...first, alreadyProvisioned: true });
    expect(await seatsOf(first.hostUserId)).toBe(2);
  });

  it('links a second link with the same e-mail in another case to the existing account', async () => {
    const first = await provisionSponsoredHost(request({ contactEmail: `Ana.${partner.slug}@Example.com` }));
    const second = await provisionSponsoredHost(
      request({ contactEmail: `ana.${partner.slug}@EXAMPLE.com`, productIds: ['checkin'] }),
    );

    expect(second.hostUserId).toBe(first.hostUserId);
    expect(second.propertyId).not.toBe(first.propertyId);
    expect(await seatsOf(first.hostUserId)).toBe(3);
    expect(await getHostIdByEmail(`ANA.${partner.slug.toUpperCase()}@example.COM`)).toBe(first.hostUserId);
    expect((await getHost(first.hostUserId))?.email).toBe(`Ana.${partner.slug}@Example.com`);
  });

  it('keeps one property per pms_hotel_id: a new link adds only the products not yet active', async () => {
    const base = request({ productIds: ['assistant'] });
    const first = await provisionSponsoredHost(base);

    const more = await provisionSponsoredHost(
      request({
        contactEmail: base.contactEmail,
        pmsHotelId: base.pmsHotelId,
        productIds: ['assistant', 'guidebook'],
      }),
    );

    expect(more.propertyId).toBe(first.propertyId);
    expect([...(await listActiveProductsOfProperty(partner.id, first.propertyId))].sort()).toEqual([
      'assistant',
      'guidebook',
    ]);
    expect(await seatsOf(first.hostUserId)).toBe(2);
  });

  it('two hosts racing for one hotel: one wins, the other is refused and gets no seat on it', async () => {
    const hotel = `RACE-${Date.now()}`;
    const [first, second] = [request({ pmsHotelId: hotel }), request({ pmsHotelId: hotel })];

    const outcomes = await Promise.allSettled([
      provisionSponsoredHost(first),
      provisionSponsoredHost(second),
    ]);

    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(PropertyHeldByAnotherHostError);
    const winner = (won[0] as PromiseFulfilledResult<{ hostUserId: number; propertyId: number }>).value;
    expect(await seatsOf(winner.hostUserId)).toBe(2);
    const loserEmail = outcomes[0]?.status === 'rejected' ? first.contactEmail : second.contactEmail;
    const loserId = await getHostIdByEmail(loserEmail);
    if (loserId !== undefined) expect((await seatsOf(loserId)) ?? 0).toBe(0);
  });

  it('refuses to move a property to another host account, changing nothing', async () => {
    const base = request();
    const first = await provisionSponsoredHost(base);
    const intruder = request({ pmsHotelId: base.pmsHotelId });

    await expect(provisionSponsoredHost(intruder)).rejects.toBeInstanceOf(PropertyHeldByAnotherHostError);
    expect(await getHostIdByEmail(intruder.contactEmail)).toBeUndefined();
    expect(await seatsOf(first.hostUserId)).toBe(2);
  });
});
