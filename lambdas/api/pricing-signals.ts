import { ProblemError } from '../../core/contract/problems';
import { dayOfTimestamp } from '../../core/domain/calendar';
import { bookingWindow, pricingSignals } from '../../core/domain/pricing-signals';
import { PROPERTY_ID } from '../../core/routes';
import { getPropertyOfPartner } from '../data/properties';
import { readPricingInputs } from '../data/reservations/read';
import { partnerApiHandler } from './partner-api-handler';

/** GET /properties/{propertyId}/pricing-signals: docs/design/pricing-signals.md over bounded reads. */
export const handler = partnerApiHandler('pricingSignals', async ({ partnerId, path, query, nowMs }) => {
  const { propertyId } = path;
  const { lookback_days: lookbackDays } = query;
  // Missing and someone else's are the same answer: the read is keyed by this partner.
  const property = await getPropertyOfPartner(partnerId, propertyId);
  if (!property) {
    throw new ProblemError(
      PROPERTY_ID.notFound.problem,
      `No property ${propertyId} is sponsored by your account.`,
    );
  }
  const today = dayOfTimestamp(nowMs);
  const { bookings, occupiedUnits } = await readPricingInputs(
    propertyId,
    bookingWindow(nowMs, lookbackDays),
    today,
  );
  return pricingSignals({
    propertyId,
    units: property.units,
    nowMs,
    bookings,
    occupiedUnits: (night) => occupiedUnits.get(night) ?? 0,
  });
});
