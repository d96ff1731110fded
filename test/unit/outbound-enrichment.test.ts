import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { OutboxStreamRecord } from '../../core/outbound-delivery';
import { OUTBOUND_LAG_METRIC } from '../../core/outbound-delivery';
import { captureEmbeddedMetrics } from '../support/embedded-metrics';

/**
 * The outbound pipe's enrichment publishes, for each event it takes, the seconds from the change's
 * commit to then, as one embedded-metric-format line per batch in the namespace the stack gives it
 * (the stack alarms on the metric's p99: test/infra/outbound-events.test.ts).
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const NAMESPACE = 'PartnerApi-unit';

const { loaded, metricLines } = captureEmbeddedMetrics(
  NAMESPACE,
  NOW,
  () => import('../../lambdas/events/outbound-enrichment'),
);
const handler: typeof import('../../lambdas/events/outbound-enrichment').handler = (...args) =>
  loaded().handler(...args);
beforeEach(() => {
  dynamo.reset();
});

const inserted = (PK: string, SK: string): OutboxStreamRecord => ({
  eventName: 'INSERT',
  dynamodb: { Keys: { PK: { S: PK }, SK: { S: SK } } },
});
/** The item as DynamoDB returns it after the enrichment's update (ALL_NEW). */
const outboxItem = (occurredAt: string, eventId: string) => ({
  PK: 'OUTBOX#7',
  SK: `${occurredAt}#${eventId}`,
  eventId,
  detailType: 'HostErased',
  detail: { event_id: eventId, host_user_id: 7 },
  occurredAt,
  hostUserId: 7,
  sentAt: new Date(NOW).toISOString(),
});
describe('the outbound enrichment’s lag metric', () => {
  it('publishes each taken event’s seconds since its commit, in one line per batch', async () => {
    dynamo
      .on(UpdateCommand, { Key: { PK: 'OUTBOX#7', SK: '2026-11-28T11:58:30.000Z#a' } })
      .resolves({ Attributes: outboxItem('2026-11-28T11:58:30.000Z', 'a') })
      .on(UpdateCommand, { Key: { PK: 'OUTBOX#7', SK: '2026-11-28T11:59:30.000Z#b' } })
      .resolves({ Attributes: outboxItem('2026-11-28T11:59:30.000Z', 'b') });

    const entries = await handler([
      inserted('OUTBOX#7', '2026-11-28T11:58:30.000Z#a'),
      inserted('OUTBOX#7', '2026-11-28T11:59:30.000Z#b'),
    ]);

    expect(entries.map((entry) => entry.time)).toEqual([
      '2026-11-28T11:58:30.000Z',
      '2026-11-28T11:59:30.000Z',
    ]);
    expect(metricLines()).toEqual([
      {
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: NAMESPACE,
              Dimensions: [['service']],
              Metrics: [{ Name: OUTBOUND_LAG_METRIC, Unit: 'Seconds' }],
            },
          ],
        },
        service: 'partner-api',
        [OUTBOUND_LAG_METRIC]: [90, 30],
      },
    ]);
  });

  it('publishes nothing for what it does not send (an item gone or erased since)', async () => {
    dynamo
      .on(UpdateCommand)
      .rejects(Object.assign(new Error('gone'), { name: 'ConditionalCheckFailedException' }));

    expect(await handler([inserted('OUTBOX#7', '2026-11-28T11:58:30.000Z#a')])).toEqual([]);
    expect(metricLines()).toEqual([]);
  });
});
