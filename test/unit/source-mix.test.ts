import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';
import type { Reservation } from '../../core/domain/reservations';
import { handler as pricingSignals } from '../../lambdas/api/pricing-signals';
import { forgetRateWindows } from '../../lambdas/data/rate-windows';
import { aggregatesOf } from '../../lambdas/data/reservations/apply';
import { channelName } from '../support/awkward-channels';
import { lambdaContext, proxyEvent } from '../support/events';
import { fakeRateWindowTable } from '../support/rate-window-table';

const dynamo = mockClient(DynamoDBDocumentClient);

/**
 * The BOOKED# items an import writes (the aggregates of its rows), as DynamoDB would hand them
 * back: through the SDK's own marshalling.
 */
function storedBookedItems(reservations: readonly Reservation[]): Record<string, unknown>[] {
  return [...aggregatesOf(reservations)]
    .filter(([sk]) => sk.startsWith('BOOKED#'))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([sk, attributes]) =>
      unmarshall(marshall(Object.fromEntries([['PK', 'PROPERTY#5'], ['SK', sk], ...attributes]))),
    );
}

/** A fresh table (and rate window: each run is a new request of the same key) with these BOOKED# items. */
function serve(bookedItems: Record<string, unknown>[]) {
  dynamo.reset();
  forgetRateWindows();
  fakeRateWindowTable(dynamo);
  dynamo.on(GetCommand).resolves({
    Item: { id: 5, partnerId: 7, hostUserId: 1, name: 'Loft', units: 1, pmsHotelId: 'P', createdAt: '' },
  });
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const from = String(input.ExpressionAttributeValues?.[':from'] ?? '');
    return { Items: from.startsWith('BOOKED#') ? bookedItems : [] };
  });
}

describe('source_mix through aggregation and the handler (property-based)', () => {
  it('keeps every imported channel, whatever its name, and the shares sum to 1 within rounding', async () => {
    const now = Date.now();
    const today = Math.floor(now / DAY_MS);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ channel: channelName, daysAgo: fc.integer({ min: 2, max: 80 }) }), {
          minLength: 1,
          maxLength: 25,
        }),
        async (rows) => {
          const reservations = rows.map(
            ({ channel, daysAgo }, index): Reservation => ({
              id: `r${index}`,
              property_id: 5,
              channel,
              booked_at: new Date((today - daysAgo) * DAY_MS + 3_600_000).toISOString(),
              check_in: isoDate(today - daysAgo + 3),
              check_out: isoDate(today - daysAgo + 4),
              status: 'confirmed',
            }),
          );
          serve(storedBookedItems(reservations));

          const result = await pricingSignals(
            proxyEvent({ pathParameters: { propertyId: '5' }, query: { lookback_days: ['90'] } }),
            lambdaContext,
          );

          expect(result.statusCode).toBe(200);
          const { signals } = JSON.parse(result.body) as PricingSignalsResponse;
          const expected = new Map<string, number>();
          for (const { channel } of rows) expected.set(channel, (expected.get(channel) ?? 0) + 1);
          expect(signals.total_reservations).toBe(rows.length);
          expect(Object.keys(signals.source_mix).sort()).toEqual([...expected.keys()].sort());
          for (const [channel, count] of expected) {
            expect(Object.hasOwn(signals.source_mix, channel)).toBe(true);
            expect(signals.source_mix[channel]).toBeCloseTo(count / rows.length, 4);
          }
          const shares = Object.values(signals.source_mix);
          expect(Math.abs(shares.reduce((sum, share) => sum + share, 0) - 1)).toBeLessThanOrEqual(
            shares.length * 0.00005 + 1e-12,
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads back channels holding U+2028 or U+2029 from the month aggregates', async () => {
    const today = Math.floor(Date.now() / DAY_MS);
    const reservations = ['Airbnb\u2028Plus', '\u2029', 'Direct', 'Direct'].map(
      (channel, index): Reservation => ({
        id: `s${index}`,
        property_id: 5,
        channel,
        booked_at: new Date((today - 10 - index) * DAY_MS).toISOString(),
        check_in: isoDate(today),
        check_out: isoDate(today + 1),
        status: 'confirmed',
      }),
    );
    serve(storedBookedItems(reservations));

    const result = await pricingSignals(proxyEvent({ pathParameters: { propertyId: '5' } }), lambdaContext);

    expect((JSON.parse(result.body) as PricingSignalsResponse).signals.source_mix).toEqual({
      'Airbnb\u2028Plus': 0.25,
      '\u2029': 0.25,
      Direct: 0.5,
    });
  });
});
