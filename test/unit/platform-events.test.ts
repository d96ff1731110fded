import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_EXAMPLES, eventExamplesFile, SERVICE_EVENT_EXAMPLES } from '../../asyncapi/examples';
import {
  checkPlatformEvent,
  eventFingerprint,
  OPERATOR_EVENT_SOURCE,
  PLATFORM_EVENT_SOURCE,
  PLATFORM_EVENT_TYPES,
  parseEventEnvelope,
} from '../../core/contract/platform-events';
import { serviceEventProblems } from '../../core/contract/service-events';
import { DEAD_LETTER_ATTRIBUTES, queueUrlVariable } from '../../core/event-delivery';
import { SERVICE_EVENT_TYPES } from '../../core/outbound-delivery';
import { useServiceEnvironment } from '../../lambdas/common/config';
import {
  RefusedEventError,
  storedVersionOf,
  storedVersionsOf,
  versionAttributes,
  versionVerdict,
} from '../../lambdas/data/event-versions';
import { listFailedEvents, parseEventLines } from '../../operations/events';

describe('the contract of the platform’s events', () => {
  it('has one example of each event, and each follows the contract', () => {
    expect(Object.keys(EVENT_EXAMPLES).sort()).toEqual([...PLATFORM_EVENT_TYPES].sort());
    for (const example of Object.values(EVENT_EXAMPLES)) {
      const checked = checkPlatformEvent(example.type, example.detail);
      expect(checked, example.type).toMatchObject({ ok: true, event: { type: example.type } });
    }
    const lines = parseEventLines(eventExamplesFile());
    expect(lines.ok && lines.events.map((event) => event.type)).toEqual(Object.keys(EVENT_EXAMPLES));
  });

  it('has one example of each event this service sends, each following its contract', () => {
    expect(Object.keys(SERVICE_EVENT_EXAMPLES).sort()).toEqual([...SERVICE_EVENT_TYPES].sort());
    for (const example of Object.values(SERVICE_EVENT_EXAMPLES))
      expect(serviceEventProblems(example.type, example.detail), example.type).toEqual([]);
    // And the check names what breaks it.
    expect(
      serviceEventProblems('HostErased', { ...SERVICE_EVENT_EXAMPLES.HostErased.detail, host_user_id: 0 }),
    ).toEqual(['detail.host_user_id: must be positive']);
  });

  it('names each field that breaks it', () => {
    expect(checkPlatformEvent('SeatExploded', {})).toEqual({
      ok: false,
      problems: [expect.stringContaining('detail-type "SeatExploded" is not one of SeatActivated')],
    });
    const seat = checkPlatformEvent('SeatActivated', {
      property_id: 0,
      product_id: 'Assistant!',
      version: 1.5,
      occurred_at: '2026-11-20 09:30',
    });
    expect(seat.ok).toBe(false);
    expect(!seat.ok && seat.problems).toEqual([
      'detail.property_id: must be positive',
      'detail.product_id: must be a catalog product id',
      'detail.version: must be an integer',
      'detail.occurred_at: must be an ISO 8601 date-time in UTC, e.g. 2026-05-01T10:00:00Z',
    ]);
    const nothing = checkPlatformEvent('PropertyUpdated', { property_id: 1, version: 1 });
    expect(!nothing.ok && nothing.problems).toEqual([expect.stringContaining('names no field to change')]);
    const twoLines = checkPlatformEvent('PropertyUpdated', { property_id: 1, version: 1, name: 'A\nB' });
    expect(!twoLines.ok && twoLines.problems).toEqual(['detail.name: must be one line of text']);
  });

  it('applies the reservation file’s rules to the reservation of ReservationChanged', () => {
    const reservation = {
      id: 'R1',
      channel: 'Direct',
      booked_at: '2026-05-01T10:00:00+02:00',
      check_in: '2026-05-10',
      check_out: '2026-05-09',
      status: 'confirmed',
    };
    const checked = checkPlatformEvent('ReservationChanged', { property_id: 1, version: 1, reservation });
    expect(!checked.ok && checked.problems).toEqual(['detail.reservation.check_out: must be after check_in']);
    const fixed = checkPlatformEvent('ReservationChanged', {
      property_id: 1,
      version: 1,
      reservation: { ...reservation, check_out: '2026-05-12' },
    });
    // booked_at normalised to UTC, as imports store it.
    expect(
      fixed.ok && fixed.event.type === 'ReservationChanged' && fixed.event.detail.reservation.booked_at,
    ).toBe('2026-05-01T08:00:00.000Z');
  });

  it('reads an SQS message body as EventBridge sends it, and refuses what is not the platform’s', () => {
    const now = Date.parse('2026-11-22T09:00:00Z');
    const envelope = (source: string, time: string | null = '2026-11-22T08:59:59Z') =>
      JSON.stringify({
        id: 'e-1',
        source,
        'detail-type': 'HostErasureRequested',
        ...(time === null ? {} : { time }),
        detail: { host_user_id: 4, requested_at: '2026-11-22T08:00:00Z' },
      });
    expect(parseEventEnvelope(envelope('host-platform'), now)).toMatchObject({
      ok: true,
      eventId: 'e-1',
      event: { publishedAt: '2026-11-22T08:59:59.000Z' },
    });
    expect(parseEventEnvelope(envelope('someone-else'), now)).toEqual({
      ok: false,
      problems: [`source must be "host-platform" (or "partner-api.operator", this service's own)`],
    });
    expect(parseEventEnvelope('{"not": "closed"', now)).toEqual({
      ok: false,
      problems: ['the message is not JSON'],
    });
    // Its time tells an event older than its entity: without one, or one from the future, it is refused.
    for (const time of [null, 'not a date', '2026-11-22 08:00'])
      expect(parseEventEnvelope(envelope('host-platform', time), now)).toEqual({
        ok: false,
        problems: ['time must be the ISO 8601 UTC time EventBridge gives every event'],
      });
    expect(parseEventEnvelope(envelope('host-platform', '2026-11-22T09:05:00Z'), now)).toMatchObject({
      ok: true,
    });
    expect(parseEventEnvelope(envelope('host-platform', '2099-01-01T00:00:00Z'), now)).toEqual({
      ok: false,
      problems: ["time 2099-01-01T00:00:00Z is more than 5 minutes ahead of the consumer's clock"],
      eventId: 'e-1',
    });
  });

  it('reads the source as whose sequence the version is in: the operators’ send ReservationChanged alone', () => {
    // Prepare
    const now = Date.parse('2026-11-22T09:00:00Z');
    const body = (source: string, example: { type: string; detail: unknown }) =>
      JSON.stringify({
        source,
        'detail-type': example.type,
        time: '2026-11-22T08:59:59Z',
        detail: example.detail,
      });

    // Act
    const platforms = parseEventEnvelope(body(PLATFORM_EVENT_SOURCE, EVENT_EXAMPLES.ReservationChanged), now);
    const operators = parseEventEnvelope(body(OPERATOR_EVENT_SOURCE, EVENT_EXAMPLES.ReservationChanged), now);
    const others = PLATFORM_EVENT_TYPES.filter((type) => type !== 'ReservationChanged').map((type) =>
      parseEventEnvelope(body(OPERATOR_EVENT_SOURCE, EVENT_EXAMPLES[type]), now),
    );

    // Assess
    expect(platforms).toMatchObject({ ok: true, event: { source: PLATFORM_EVENT_SOURCE } });
    expect(operators).toMatchObject({ ok: true, event: { source: OPERATOR_EVENT_SOURCE } });
    // The same event either way: the fingerprint is of what it says, each source's kept apart.
    expect(operators.ok && eventFingerprint(operators.event)).toBe(
      platforms.ok && eventFingerprint(platforms.event),
    );
    for (const refused of others)
      expect(refused).toEqual({
        ok: false,
        problems: [
          `source "${OPERATOR_EVENT_SOURCE}" sends only ReservationChanged: the other events are the platform's alone`,
        ],
      });
  });

  it('refuses a change dated in the future, which would beat every later change', () => {
    // Prepare
    const now = Date.parse('2026-11-22T09:00:00Z');
    const ending = (occurredAt: string) =>
      JSON.stringify({
        source: 'host-platform',
        'detail-type': 'SponsorshipEnded',
        time: '2026-11-22T08:59:59Z',
        detail: { partner_id: 1, host_user_id: 4, version: 2, occurred_at: occurredAt },
      });

    // Act
    const future = parseEventEnvelope(ending('9999-12-31T23:59:59Z'), now);
    const withinClockSkew = parseEventEnvelope(ending('2026-11-22T09:04:00Z'), now);

    // Assess
    expect(future).toEqual({
      ok: false,
      problems: [
        "detail.occurred_at 9999-12-31T23:59:59Z is more than 5 minutes ahead of the consumer's clock",
      ],
    });
    expect(withinClockSkew).toMatchObject({ ok: true });
  });

  it('fingerprints what an event says, not how its JSON is ordered', () => {
    const detail = { property_id: 1, version: 2, name: 'Loft', units: 2 };
    const reordered = { units: 2, name: 'Loft', version: 2, property_id: 1 };
    const a = eventFingerprint({ type: 'PropertyUpdated', detail });
    expect(eventFingerprint({ type: 'PropertyUpdated', detail: reordered })).toBe(a);
    expect(eventFingerprint({ type: 'PropertyUpdated', detail: { ...detail, units: 3 } })).not.toBe(a);
  });
});

describe('versions', () => {
  it('apply a greater version, ignore a smaller or the same event again, refuse one version saying two things', () => {
    const stored = { version: 3, eventFingerprint: 'abc' };
    expect(versionVerdict(stored, 4, 'def', 'x')).toBe('newer');
    expect(versionVerdict(stored, 2, 'def', 'x')).toBe('stale');
    expect(versionVerdict(stored, 3, 'abc', 'x')).toBe('duplicate');
    expect(() => versionVerdict(stored, 3, 'def', 'seat x')).toThrow(RefusedEventError);
    expect(() => versionVerdict(stored, 3, 'def', 'seat x')).toThrow(
      'seat x already applied version 3 from a different event',
    );
    // Nothing applied yet: any version is newer.
    expect(versionVerdict({}, 1, 'abc', 'x')).toBe('newer');
  });

  it('are stored apart per source, so each source is judged against its own sequence alone', () => {
    const item = versionAttributes({
      [PLATFORM_EVENT_SOURCE]: { version: 1, eventFingerprint: 'platform' },
      [OPERATOR_EVENT_SOURCE]: { version: 4, eventFingerprint: 'import' },
    });

    expect(item).toEqual({
      version: 1,
      eventFingerprint: 'platform',
      operatorVersion: 4,
      operatorFingerprint: 'import',
    });
    expect(storedVersionsOf(item)).toEqual({
      [PLATFORM_EVENT_SOURCE]: { version: 1, eventFingerprint: 'platform' },
      [OPERATOR_EVENT_SOURCE]: { version: 4, eventFingerprint: 'import' },
    });
    // The platform's version 2 is newer to the platform, whatever the imports' sequence is at.
    expect(versionVerdict(storedVersionOf(item), 2, 'next', 'x')).toBe('newer');
    expect(versionVerdict(storedVersionOf(item, OPERATOR_EVENT_SOURCE), 2, 'next', 'x')).toBe('stale');
  });
});

describe('events failed', () => {
  const sqs = mockClient(SQSClient);
  beforeAll(() => {
    useServiceEnvironment({
      ...process.env,
      [queueUrlVariable('platformEventsDeadLetter')]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
    });
  });
  afterAll(() => {
    sqs.restore();
    useServiceEnvironment(process.env);
  });

  it('lists an event read twice during a redrive once, with its latest reason', async () => {
    const message = (messageId: string, eventId: string, sentAt: number, reason: string) => ({
      MessageId: messageId,
      ReceiptHandle: `handle-${messageId}`,
      Body: JSON.stringify({ id: eventId, 'detail-type': 'SeatActivated', detail: { property_id: 31 } }),
      Attributes: { SentTimestamp: String(sentAt) },
      MessageAttributes: { [DEAD_LETTER_ATTRIBUTES.reason]: { DataType: 'String', StringValue: reason } },
    });
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          message('m1', 'event-a', 1_000, 'no property 31'),
          message('m2', 'event-b', 2_000, 'other'),
        ],
      })
      .resolvesOnce({ Messages: [message('m3', 'event-a', 3_000, 'property 31 was created later')] })
      .resolves({ Messages: [] });
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});

    const { events } = await listFailedEvents();

    expect(events.map((event) => [event.message_id, event.reason])).toEqual([
      ['m2', 'other'],
      ['m3', 'property 31 was created later'],
    ]);
  });
});
