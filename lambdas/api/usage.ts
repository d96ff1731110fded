import { usageReport } from '../../core/domain/usage';
import { listSponsoredHostSeats } from '../data/sponsorships';
import { partnerApiHandler } from './partner-api-handler';

/** GET /usage: seats of the hosts the partner sponsors. */
export const handler = partnerApiHandler('usage', async ({ partnerId, nowMs }) =>
  usageReport(partnerId, await listSponsoredHostSeats(partnerId), nowMs),
);
