import * as z from 'zod/mini';
import { pricingSignalsSchema } from '../../core/contract/api-schemas';
import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';

/**
 * What a property with no confirmed reservation booked in its window answers for a field of the
 * response's schema: every number 0 (not null, not absent), every map (the source mix) empty.
 * Walked from the schema, so a new signal needs no edit here; a kind of field it cannot make throws.
 */
function noReservationValue(schema: z.core.$ZodType): unknown {
  if (schema instanceof z.ZodMiniNumber) return 0;
  if (schema instanceof z.ZodMiniRecord) return Object.freeze({});
  if (schema instanceof z.ZodMiniObject)
    return Object.freeze(
      Object.fromEntries(
        Object.entries(schema.shape as Record<string, z.core.$ZodType>).map(([field, fieldSchema]) => [
          field,
          noReservationValue(fieldSchema),
        ]),
      ),
    );
  throw new Error(`No "no reservation" value for a ${schema._zod.def.type}`);
}

/** The `signals` of a property with no confirmed reservation booked in its lookback window. Frozen, as the tests share it. */
export const NO_RESERVATION_SIGNALS = noReservationValue(pricingSignalsSchema.shape.signals) as Readonly<
  PricingSignalsResponse['signals']
>;
