import type { Context } from 'aws-lambda';
import type { OutboundEntry, OutboxStreamRecord } from '../../core/outbound-delivery';
import { logger } from '../common/logger';
import { takeForDelivery } from '../data/outbox';

/**
 * The enrichment of the EventBridge Pipe that delivers the outbox (docs/design/events.md#delivery-to-the-platform).
 * The pipe reads the table's stream, keeps the records of outbox items as they are written (its
 * filter), and hands them here in batches; the stream carries keys only, so this reads each item
 * and returns one entry per event to send, in the batch's order. The pipe sends each entry to the
 * stage's bus (its detail-type, time and detail: `OUTBOUND_TARGET`).
 *
 * What it leaves out is never sent: a record that is not an outbox item's insert (the filter should
 * have kept it out), and an item gone or erased since it was written. A failure to read throws: the
 * pipe tries the batch again, halving it, until the records are a day old.
 */
export async function handler(
  records: readonly OutboxStreamRecord[],
  _context?: Context,
): Promise<OutboundEntry[]> {
  const nowIso = new Date().toISOString();
  // Read side by side; the entries keep the batch's order.
  const taken = await Promise.all(
    (Array.isArray(records) ? records : []).map(async (record) => {
      const keys = record.dynamodb?.Keys;
      const PK = keys?.PK?.S;
      const SK = keys?.SK?.S;
      if (record.eventName !== 'INSERT' || PK === undefined || SK === undefined) return undefined;
      const entry = await takeForDelivery({ PK, SK }, nowIso);
      if (!entry)
        logger.info('Outbox item not sent: gone or erased since it was written', { key: `${PK} ${SK}` });
      return entry;
    }),
  );
  return taken.filter((entry) => entry !== undefined);
}
