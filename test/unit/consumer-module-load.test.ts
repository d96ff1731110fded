import { describe, expect, it, vi } from 'vitest';
import { EVENT_EXAMPLES } from '../../asyncapi/examples';

/**
 * The event consumer's cold start pays for what its modules do when they load, and Lambda bills
 * that time (docs/design/README.md#cold-start-is-billed). Its zod schemas are built on first use,
 * and its SQS client (for the dead-letter queue) is loaded only when an event is dead-lettered.
 */
const counted = vi.hoisted(() => ({ objectSchemas: 0, sqsLoaded: false }));
vi.mock('zod/mini', async (importOriginal) => {
  const actual = await importOriginal<typeof import('zod/mini')>();
  return {
    ...actual,
    object: ((...args: Parameters<typeof actual.object>) => {
      counted.objectSchemas += 1;
      return actual.object(...args);
    }) as typeof actual.object,
  };
});
vi.mock('@aws-sdk/client-sqs', async (importOriginal) => {
  counted.sqsLoaded = true;
  return importOriginal();
});

/** An SQS message body: the example event as EventBridge delivers it. */
function delivered(example: { type: string; detail: unknown }): string {
  return JSON.stringify({
    id: 'e-1',
    source: 'host-platform',
    'detail-type': example.type,
    time: '2026-11-20T09:30:05Z',
    detail: example.detail,
  });
}

describe('loading the event consumer', () => {
  it('builds no schema and loads no SQS client; an event builds the envelope’s and its type’s, once', async () => {
    const consumer = await import('../../lambdas/events/consumer');
    const atLoad = { ...counted };
    const { parseEventEnvelope } = await import('../../core/contract/platform-events');
    const now = Date.parse('2026-12-31T00:00:00Z');

    const seat = parseEventEnvelope(delivered(EVENT_EXAMPLES.SeatActivated), now);
    const afterSeat = counted.objectSchemas;
    parseEventEnvelope(delivered(EVENT_EXAMPLES.SeatDeactivated), now);
    const afterSameSchema = counted.objectSchemas;
    const erasure = parseEventEnvelope(delivered(EVENT_EXAMPLES.HostErasureRequested), now);

    expect(typeof consumer.handler).toBe('function');
    expect(atLoad).toEqual({ objectSchemas: 0, sqsLoaded: false });
    expect(seat).toMatchObject({ ok: true, event: { type: 'SeatActivated' } });
    expect(afterSeat).toBe(2);
    expect(afterSameSchema).toBe(2);
    expect(erasure).toMatchObject({ ok: true, event: { type: 'HostErasureRequested' } });
    expect(counted.objectSchemas).toBe(3);
    expect(counted.sqsLoaded).toBe(false);
  });
});
