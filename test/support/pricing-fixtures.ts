import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';

/**
 * The `signals` of a property with no confirmed reservation booked in its lookback window:
 * every figure 0 (not null, not absent) and an empty source mix. Frozen, as the tests share it.
 */
export const NO_RESERVATION_SIGNALS: Readonly<PricingSignalsResponse['signals']> = Object.freeze({
  occupancy_today: 0,
  avg_lead_time_days: 0,
  avg_stay_nights: 0,
  source_mix: Object.freeze({}),
  total_reservations: 0,
});
