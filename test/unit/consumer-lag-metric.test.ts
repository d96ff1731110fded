import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { EVENT_EXAMPLES } from '../../asyncapi/examples';
import { PLATFORM_EVENT_LAG_METRIC } from '../../core/event-delivery';
import { captureEmbeddedMetrics } from '../support/embedded-metrics';

/**
 * The consumer publishes, for each event it applied (or found to change nothing), the seconds from
 * the platform's publish (the envelope's `time`) to then, as one embedded-metric-format line per
 * batch: what the event-lag objective is judged on (lib/service-objectives.ts). How an event is
 * applied is the model test's (test/integration/platform-events.model.test.ts); here it is stubbed.
 */
vi.mock('../../lambdas/events/apply-event', () => ({
  applyPlatformEvent: vi.fn(async () => 'applied'),
  applyReservationEvents: vi.fn(async () => []),
}));

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const NAMESPACE = 'PartnerApi-unit';

const { loaded, metricLines } = captureEmbeddedMetrics(
  NAMESPACE,
  NOW,
  () => import('../../lambdas/events/consumer'),
);

const message = (id: string, time: string, example: { type: string; detail: unknown }) => ({
  messageId: id,
  receiptHandle: id,
  body: JSON.stringify({
    id: `e-${id}`,
    source: 'host-platform',
    'detail-type': example.type,
    time,
    detail: example.detail,
  }),
  attributes: { ApproximateReceiveCount: '1' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:events',
  awsRegion: 'eu-west-1',
});
const context = { getRemainingTimeInMillis: () => 60_000 } as Context;
describe('the event consumer’s lag metric', () => {
  it('publishes each applied event’s seconds since the platform published it, in one line per batch', async () => {
    const batch = {
      Records: [
        message('1', '2026-11-28T11:59:00Z', EVENT_EXAMPLES.SeatActivated),
        message('2', '2026-11-28T11:59:55Z', EVENT_EXAMPLES.SeatDeactivated),
      ],
    } as SQSEvent;

    const response = await loaded().handler(batch, context);

    expect(response).toEqual({ batchItemFailures: [] });
    expect(metricLines()).toEqual([
      expect.objectContaining({
        _aws: {
          Timestamp: NOW,
          CloudWatchMetrics: [
            {
              Namespace: NAMESPACE,
              Dimensions: [['service']],
              Metrics: [{ Name: PLATFORM_EVENT_LAG_METRIC, Unit: 'Seconds' }],
            },
          ],
        },
        service: 'partner-api',
        [PLATFORM_EVENT_LAG_METRIC]: [60, 5],
      }),
    ]);
  });
});
