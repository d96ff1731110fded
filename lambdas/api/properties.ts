import { listPropertiesOfPartner } from '../data/properties';
import { partnerApiHandler } from './partner-api-handler';

/** GET /properties: id and name of every property the partner sponsors. */
export const handler = partnerApiHandler('properties', async ({ partnerId, nowMs }) => ({
  partner_id: partnerId,
  generated_at: new Date(nowMs).toISOString(),
  properties: await listPropertiesOfPartner(partnerId),
}));
