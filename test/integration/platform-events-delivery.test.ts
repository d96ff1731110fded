import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { EVENT_EXAMPLES } from '../../asyncapi/examples';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { serviceConfig } from '../../lambdas/common/config';
import { RefusedEventError } from '../../lambdas/data/event-versions';
import { getHost } from '../../lambdas/data/hosts';
import { applyPlatformEvent, applyReservationEvents } from '../../lambdas/events/apply-event';
import { eventsApplied } from '../../operations/events';
import { admin, adminJson } from '../support/cli';
import { approvedPartner, sponsoredProperty } from '../support/partners';
import {
  at,
  failedEventsAbout,
  folder,
  line,
  partner,
  preparePlatformEvents,
  publish,
  seatsOfHost,
} from '../support/platform-events';
import { startServerProcess } from '../support/processes';

preparePlatformEvents();

describe('failed events', () => {
  it('are refused before sending when a line breaks the contract, each bad line named (exit 2)', async () => {
    const file = join(folder, 'bad.jsonl');
    await writeFile(
      file,
      [
        line({
          type: 'SeatActivated',
          detail: { property_id: 1, product_id: 'assistant', version: 1, occurred_at: at() },
        }),
        '{"detail-type": "SeatExploded", "detail": {}}',
        '{"detail-type": "PropertyUpdated", "detail": {"property_id": 1, "version": 0}}',
        'not json',
        '{"detail-type": "HostErasureRequested", "source": "elsewhere", "time": "2001-01-01T00:00:00Z", "detail": {"host_user_id": 1, "requested_at": "2026-01-01T00:00:00Z"}}',
      ].join('\n'),
    );
    const huge = join(folder, 'huge.jsonl');
    await writeFile(huge, '');
    await truncate(huge, 3 * 1024 ** 3);

    const result = await admin('events', 'publish', '--file', file);
    const tooLarge = await admin('events', 'publish', '--file', huge);

    expect(tooLarge.code).toBe(2);
    expect(tooLarge.stderr).toContain('is larger than 50 MB; split it into several files.');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing was sent: 4 line(s)');
    expect(result.stderr).toContain(
      'line 5: "source", "time": a line holds only "detail-type" and "detail" (the source is always host-platform',
    );
    expect(result.stderr).toContain('line 2: detail-type "SeatExploded" is not one of SeatActivated');
    expect(result.stderr).toContain('line 3: detail.version: must be positive');
    expect(result.stderr).toContain('names no field to change');
    expect(result.stderr).toContain('line 4: not JSON');
  });

  it('are listed with their reasons and redriven; an event that applies after a fix leaves the list', async () => {
    const email = `late-sponsor-${Date.now()}@example.com`;
    const unknownProperty = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    await publish({
      type: 'SeatActivated',
      detail: { property_id: unknownProperty, product_id: 'assistant', version: 1, occurred_at: at() },
    });
    const [failed] = await failedEventsAbout({ key: 'property_id', id: unknownProperty });
    expect(failed?.reason).toContain(`no property ${unknownProperty}`);
    // The event's own id, which the consumer's log names too (the queue gives the message a new one).
    expect(failed?.event_id).toMatch(/^[0-9a-f-]{36}$/);
    // Another file listing the dead-letter queue at the same moment hides its messages for a while.
    let text = await admin('events', 'failed');
    for (let look = 2; look <= 3 && !text.stdout.includes(`no property ${unknownProperty}`); look++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      text = await admin('events', 'failed');
    }
    expect(text.stdout).toContain('FAILED');
    expect(text.stdout).toContain(`no property ${unknownProperty}`);

    // A refusal that an operator fixes: the partner's agreement gains the product, then redrive.
    const narrow = await approvedPartner({ products: ['assistant'] });
    const { propertyId, hostUserId } = await sponsoredProperty(narrow.id, { email });
    await publish({
      type: 'SeatActivated',
      detail: { property_id: propertyId, product_id: 'upsells', version: 1, occurred_at: at() },
    });
    expect(await failedEventsAbout({ key: 'property_id', id: propertyId })).toHaveLength(1);
    expect(
      (await admin('partners', 'update', '--partner', narrow.slug, '--products', 'assistant,upsells')).code,
    ).toBe(0);

    const redrive = await adminJson('events', 'redrive');
    expect(redrive.moving).toBeGreaterThanOrEqual(2);
    expect(await eventsApplied(60_000)).toBe(true);

    expect(await failedEventsAbout({ key: 'property_id', id: propertyId })).toEqual([]);
    expect(await seatsOfHost(narrow.key, hostUserId)).toBe(2);
    expect(await failedEventsAbout({ key: 'property_id', id: unknownProperty })).toHaveLength(1);
  });
});

describe('events published before their entity existed', () => {
  // Ids are counters: an event refused as "no property 31" and redriven after property 31 was
  // created for another host would otherwise apply to that host. The envelope's `time` tells.
  it('are refused, erasure included, and the same events published after the entity apply', async () => {
    const email = `later-holder-${Date.now()}@example.com`;
    const { propertyId, hostUserId } = await sponsoredProperty(partner.id, { email });
    const anHourAgo = at(-60);
    const seat: PlatformEvent = {
      type: 'SeatActivated',
      detail: { property_id: propertyId, product_id: 'upsells', version: 1, occurred_at: anHourAgo },
    };
    const booking = (id: string): PlatformEvent<'ReservationChanged'> => ({
      type: 'ReservationChanged',
      detail: {
        property_id: propertyId,
        version: 1,
        reservation: {
          id,
          channel: 'Direct',
          booked_at: anHourAgo,
          check_in: at(60 * 24).slice(0, 10),
          check_out: at(60 * 48).slice(0, 10),
          status: 'confirmed',
        },
      },
    });
    const erasure: PlatformEvent = {
      type: 'HostErasureRequested',
      detail: { host_user_id: hostUserId, requested_at: anHourAgo },
    };
    const ending: PlatformEvent = {
      type: 'SponsorshipEnded',
      detail: { partner_id: partner.id, host_user_id: hostUserId, version: 1, occurred_at: at(60) },
    };
    const early = <T extends PlatformEvent>(event: T): T => ({ ...event, publishedAt: anHourAgo });

    const refusals = await Promise.all(
      [early(seat), early(erasure), early(ending)].map((event) =>
        applyPlatformEvent(event, Date.now(), Date.now() + 60_000).catch((error: unknown) => error),
      ),
    );
    const together = await applyReservationEvents(
      [early(booking('R-1')), booking('R-2')],
      propertyId,
      Date.now(),
    );

    expect(refusals).toEqual([
      expect.objectContaining({
        name: 'RefusedEventError',
        message: expect.stringMatching(
          new RegExp(
            `^property ${propertyId} was created at .+, after the event was published \\(${anHourAgo}\\): the event is not about it$`,
          ),
        ),
      }),
      expect.objectContaining({
        name: 'RefusedEventError',
        message: expect.stringMatching(
          new RegExp(`^host ${hostUserId} was created at .+: the event is not about it$`),
        ),
      }),
      expect.objectContaining({
        name: 'RefusedEventError',
        message: expect.stringMatching(
          new RegExp(
            `^the sponsorship of host ${hostUserId} by partner ${partner.id} was created at .+: the event is not about it$`,
          ),
        ),
      }),
    ]);
    expect(together[0]).toBeInstanceOf(RefusedEventError);
    expect(together[1]).toBe('applied');
    expect(await getHost(hostUserId)).toMatchObject({ email });
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(1);

    expect(await applyPlatformEvent({ ...seat, publishedAt: at() }, Date.now(), Date.now() + 60_000)).toBe(
      'applied',
    );
    expect(await seatsOfHost(partner.key, hostUserId)).toBe(2);
  });
});

describe('the local bus', () => {
  it('keeps the time a publisher gives PutEvents, as EventBridge does, so an early event is refused', async () => {
    // Prepare
    const config = serviceConfig();
    const bus = new EventBridgeClient({
      endpoint: config.local?.eventBridgeEndpoint,
      region: 'local',
      credentials: config.local?.credentials,
    });
    const { propertyId } = await sponsoredProperty(partner.id);

    // Act
    await bus.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: config.eventBusName,
            Source: 'host-platform',
            DetailType: 'PropertyUpdated',
            Detail: JSON.stringify({ property_id: propertyId, version: 1, name: 'Published long ago' }),
            Time: new Date('2001-01-01T00:00:00Z'),
          },
        ],
      }),
    );
    expect(await eventsApplied(30_000)).toBe(true);

    // Assess
    const [failed] = await failedEventsAbout({ key: 'property_id', id: propertyId });
    expect(failed?.reason).toContain('after the event was published (2001-01-01T00:00:00.000Z)');
  });
});

describe('the examples of the contract', () => {
  it('apply to the demo data of a fresh npm start as docs/examples/events.jsonl and docs/operators.md say', async () => {
    // A server of its own: the examples change the demo partner that other files read.
    const server = await startServerProcess();
    try {
      const demoKey = /Demo partner[^\n]*\n\s+(svc_\S+)/.exec(server.output())?.[1] ?? '';
      const get = async (path: string) =>
        (
          await fetch(`${server.runtime.apiBaseUrl}${path}`, {
            headers: { Authorization: `Bearer ${demoKey}` },
          })
        ).json();
      const before = (await get('/usage')) as { hosts: { host_user_id: number; active_seats: number }[] };

      const result = await server.admin(
        'events',
        'publish',
        '--file',
        'docs/examples/events.jsonl',
        '--wait',
      );

      expect(result).toMatchObject({
        accepted: Object.keys(EVENT_EXAMPLES).length,
        applied: true,
        dead_lettered: 0,
      });
      const after = (await get('/usage')) as {
        active_seats: number;
        hosts: { host_user_id: number; active_seats: number }[];
      };
      // Host 1 trades upsells for guidebook on property 1; host 2 is erased; host 3 leaves demo-pms.
      expect(after.hosts).toEqual([{ host_user_id: 1, active_seats: before.hosts[0]?.active_seats }]);
      const properties = (await get('/properties')) as { properties: { id: number; name: string }[] };
      expect(properties.properties).toEqual([
        { id: 1, name: 'Seaside Loft' },
        { id: 2, name: 'Harbour View Apartments & Spa' },
      ]);
    } finally {
      await server.stop();
    }
    // A server of its own (bundling, DynamoDB Local, the demo data): over a minute on a busy machine.
  }, 180_000);
});
