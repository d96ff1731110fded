import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { OutboundEntry, OutboxStreamRecord } from '../../core/outbound-delivery';
import { OUTBOUND_LAG_METRIC } from '../../core/outbound-delivery';
import { logger } from '../common/logger';
import { takeForDelivery } from '../data/outbox';

/**
 * The commit-to-delivery lag of each event taken, as CloudWatch's embedded metric format: one log
 * line per batch, its namespace and `service` dimension from the environment the stack sets.
 */
const metrics = new Metrics();

/**
 * The enrichment of the EventBridge Pipe that delivers the outbox (docs/design/events.md#delivery-to-the-platform).
 * The pipe reads the table's stream, keeps the records of outbox items as they are written (its
 * filter), and hands them here in batches; the stream carries keys only, so this reads each item
 * and returns one entry per event to send, in the batch's order. The pipe sends each entry to the
 * stage's bus (its detail-type, time and detail: `OUTBOUND_TARGET`).
 *
 * What it leaves out is never sent: a record that is not an outbox item's insert (the filter should
 * have kept it out), and an item gone or erased since it was written. A failure to read throws: the
 * pipe tries the batch again, halving it, until the records are 23 hours old.
 */
export async function handler(
  records: readonly OutboxStreamRecord[],
  _context?: Context,
): Promise<OutboundEntry[]> {
  const nowMs = Date.now();
  const nowIso = new Date(nowMs).toISOString();
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
  const entries = taken.filter((entry) => entry !== undefined);
  publishLag(entries, nowMs);
  return entries;
}

/** Seconds from each event's commit (`time`, its `occurredAt`) to now, published in one line. */
function publishLag(entries: readonly OutboundEntry[], nowMs: number): void {
  for (const entry of entries) {
    const committedMs = Date.parse(entry.time);
    if (Number.isFinite(committedMs))
      metrics.addMetric(OUTBOUND_LAG_METRIC, MetricUnit.Seconds, Math.max(0, (nowMs - committedMs) / 1000));
  }
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
