import { listSponsoredHostSeats } from '../data/sponsorships';
import { usageReport } from '../domain/usage';
import { partnerApiHandler } from './partner-api-handler';

/** GET /usage: seats of the hosts the partner sponsors. */
export const handler = partnerApiHandler('usage', async ({ partnerId, nowMs }) =>
  usageReport(partnerId, await listSponsoredHostSeats(partnerId), nowMs),
);
