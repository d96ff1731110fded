import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createPartnerApiClient } from '../../clients/typescript/src/index';
import { applyPlatformEvent } from '../../lambdas/events/apply-event';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';

/**
 * `GET /properties?pms_hotel_id=…`: a partner finds its own hotel (the id in the activation link)
 * among the properties it sponsors, over HTTP against DynamoDB Local.
 */
let partner: TestPartner;
let other: TestPartner;
let found: { propertyId: number; hostUserId: number };
const PMS_ID = `PMS-${Date.now()}/A:1`;
const query = (pmsHotelId: string, more = '') =>
  `/properties?pms_hotel_id=${encodeURIComponent(pmsHotelId)}${more}`;

beforeAll(async () => {
  [partner, other] = await Promise.all([approvedPartner(), approvedPartner()]);
  found = await sponsoredProperty(partner.id, { name: 'Lookup Loft', pmsHotelId: PMS_ID });
  await sponsoredProperty(partner.id, { name: 'Another Loft' });
  await sponsoredProperty(other.id, { name: 'Same id elsewhere', pmsHotelId: `${PMS_ID}-other` });
});

describe('GET /properties?pms_hotel_id', () => {
  it('200: the property with that id alone, with the fields of the list and nothing more', async () => {
    const { status, json, headers } = await apiGet(query(PMS_ID), partner.key);

    expect(status).toBe(200);
    expect(json).toEqual({
      partner_id: partner.id,
      generated_at: expect.any(String),
      properties: [{ id: found.propertyId, name: 'Lookup Loft' }],
    });
    expect(headers.get('link')).toBeNull();
  });

  it('200 with an empty list: an id none of its hosts has, and another partner’s id', async () => {
    const unknown = await apiGet(query('PMS-none-such'), partner.key);
    const foreign = await apiGet(query(`${PMS_ID}-other`), partner.key);

    expect([unknown.status, foreign.status]).toEqual([200, 200]);
    expect(unknown.json.properties).toEqual([]);
    expect(foreign.json.properties).toEqual([]);
  });

  it('with limit: the same one property, on one page with no Link header', async () => {
    const { status, json, headers } = await apiGet(query(PMS_ID, '&limit=1'), partner.key);

    expect(status).toBe(200);
    expect(json.properties).toEqual([{ id: found.propertyId, name: 'Lookup Loft' }]);
    expect(headers.get('link')).toBeNull();
  });

  it.each([
    ['with a cursor', query(PMS_ID, '&limit=1&cursor=AQAAAAAAAAAB'), /pms_hotel_id does not go with cursor/],
    // Not "cursor goes with limit", which would send the partner to add a limit first.
    [
      'with a cursor, no limit',
      query(PMS_ID, '&cursor=AQAAAAAAAAAB'),
      /pms_hotel_id does not go with cursor/,
    ],
    ['empty', query(''), /Give pms_hotel_id once, as 1 to 128 printable characters/],
    ['with a space', query('PMS 42'), /Give pms_hotel_id once/],
    ['too long', query('P'.repeat(129)), /Give pms_hotel_id once/],
    ['twice', query(PMS_ID, `&pms_hotel_id=${encodeURIComponent(PMS_ID)}`), /Give pms_hotel_id once/],
  ])('400 invalid-request %s', async (_, path, detail) => {
    const { status, json } = await apiGet(path, partner.key);

    expect(status).toBe(400);
    expect(json.type).toBe('https://developers.example.com/partner-api/problems/invalid-request');
    expect(json.detail).toMatch(detail);
  });

  it('an ended sponsorship hides the property, as in the list', async () => {
    // Prepare
    const pmsHotelId = `PMS-ended-${Date.now()}`;
    const ended = await sponsoredProperty(partner.id, { pmsHotelId });
    const before = await apiGet(query(pmsHotelId), partner.key);

    // Act
    await applyPlatformEvent(
      {
        type: 'SponsorshipEnded',
        detail: {
          partner_id: partner.id,
          host_user_id: ended.hostUserId,
          version: 1,
          occurred_at: new Date().toISOString(),
        },
      },
      Date.now(),
      Date.now() + 60_000,
    );
    const after = await apiGet(query(pmsHotelId), partner.key);

    // Assess
    expect(before.json.properties).toEqual([{ id: ended.propertyId, name: expect.any(String) }]);
    expect(after.status).toBe(200);
    expect(after.json.properties).toEqual([]);
  });

  it('the typed client: propertyByPmsHotelId gives the property, or undefined', async () => {
    const api = createPartnerApiClient({ baseUrl: inject('apiBaseUrl'), apiKey: partner.key });

    expect(await api.propertyByPmsHotelId(PMS_ID)).toEqual({ id: found.propertyId, name: 'Lookup Loft' });
    expect(await api.propertyByPmsHotelId('PMS-none-such')).toBeUndefined();
  });
});
