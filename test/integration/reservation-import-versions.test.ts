import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { OPERATOR_EVENT_SOURCE } from '../../core/contract/platform-events';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { serviceConfig } from '../../lambdas/common/config';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { eventsApplied } from '../../operations/events';
import { adminJson, adminProcess } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';
import { importAsProcess, importFolder } from '../support/reservation-import';

let partner: TestPartner;
const { folder, writeRows } = importFolder();

beforeAll(async () => {
  partner = await approvedPartner();
});

describe('each sequence of versions has one writer (docs/design/events.md#versions)', () => {
  const today = () => Math.floor(Date.now() / DAY_MS);

  /** A reservation of one night, tonight, on `channel`. */
  const tonight = (propertyId: number, id: string, channel: string): Reservation => ({
    id,
    property_id: propertyId,
    channel,
    booked_at: new Date((today() - 2) * DAY_MS).toISOString(),
    check_in: isoDate(today()),
    check_out: isoDate(today() + 1),
    status: 'confirmed',
  });

  const asEvent = ({ property_id, ...reservation }: Reservation, version: number): PlatformEvent => ({
    type: 'ReservationChanged',
    detail: { property_id, version, reservation },
  });

  /** `events publish --file … --wait` as a process of its own: the platform's events, on the local bus. */
  async function platformPublishes(...events: PlatformEvent[]) {
    const file = join(folder(), `${Math.random().toString(36).slice(2)}.jsonl`);
    await writeFile(
      file,
      events.map((event) => JSON.stringify({ 'detail-type': event.type, detail: event.detail })).join('\n'),
    );
    const result = await adminProcess(
      inject('localDirectory'),
      ['events', 'publish', '--file', file, '--wait', '--json'],
      120_000,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ accepted: events.length, applied: true });
  }

  /** An event put on the local bus with any source, as a principal of the stage's own account may. */
  async function putOnTheBus(source: string, event: PlatformEvent) {
    const config = serviceConfig();
    const bus = new EventBridgeClient({
      endpoint: config.local?.eventBridgeEndpoint,
      region: 'local',
      credentials: config.local?.credentials,
    });
    const { FailedEntryCount } = await bus.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: config.eventBusName,
            Source: source,
            DetailType: event.type,
            Detail: JSON.stringify(event.detail),
          },
        ],
      }),
    );
    expect(FailedEntryCount).toBe(0);
    expect(await eventsApplied(30_000)).toBe(true);
  }

  async function failedAbout(propertyId: number) {
    const { events } = (await adminJson('events', 'failed')) as {
      events: { detail_type: string; detail: Record<string, unknown>; reason: string }[];
    };
    return events.filter((event) => event.detail.property_id === propertyId);
  }

  async function signalsOf(propertyId: number) {
    const { status, json } = await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key);
    expect(status).toBe(200);
    return json.signals as { occupancy_today: number; total_reservations: number; source_mix: object };
  }

  async function nameOf(propertyId: number) {
    const { json } = await apiGet('/properties', partner.key);
    return (json.properties as { id: number; name: string }[]).find((property) => property.id === propertyId)
      ?.name;
  }

  async function storedReservation(propertyId: number, id: string) {
    const { Item } = await dynamoDb().send(
      new GetCommand({
        TableName: tableName(),
        Key: { PK: `PROPERTY#${propertyId}`, SK: `RES#${id}` },
        ConsistentRead: true,
      }),
    );
    return {
      channel: Item?.reservation?.channel,
      revision: Item?.revision,
      version: Item?.version,
      operatorVersion: Item?.operatorVersion,
    };
  }

  it('--units is the operator’s own: the platform’s PropertyUpdated at version 1 applies after it, and the later of the two stands', async () => {
    // Prepare: an import with units, as an operator runs it.
    const { propertyId } = await sponsoredProperty(partner.id, { name: 'Canal House' });
    const file = await writeRows([tonight(propertyId, 'U-1', 'Direct')]);
    const imported = await importAsProcess(propertyId, file, '--units', '4');
    expect(imported.code, imported.stderr).toBe(0);
    expect((await signalsOf(propertyId)).occupancy_today).toBe(0.25);

    // Act: the platform's own first change of the property.
    const platformsFirst: PlatformEvent = {
      type: 'PropertyUpdated',
      detail: { property_id: propertyId, version: 1, name: 'Canal House Lofts', units: 2 },
    };
    await platformPublishes(platformsFirst);

    // Assess: it applied (name and units), and nothing was dead-lettered.
    expect(await nameOf(propertyId)).toBe('Canal House Lofts');
    expect((await signalsOf(propertyId)).occupancy_today).toBe(0.5);
    expect(await failedAbout(propertyId)).toEqual([]);

    // An import after it stands; the platform's version 1 delivered again is a duplicate.
    expect((await importAsProcess(propertyId, file, '--units', '5')).code).toBe(0);
    await platformPublishes(platformsFirst);
    expect((await signalsOf(propertyId)).occupancy_today).toBe(0.2);
    // The platform's next version applies over the import's units.
    await platformPublishes({
      type: 'PropertyUpdated',
      detail: { property_id: propertyId, version: 2, units: 1 },
    });
    expect((await signalsOf(propertyId)).occupancy_today).toBe(1);
    expect(await failedAbout(propertyId)).toEqual([]);
  });

  it('an imported reservation and the platform’s version 1 of it both apply, the later standing; a re-import applies again, and a replay is a duplicate', async () => {
    // Prepare: the operator imports a reservation.
    const { propertyId } = await sponsoredProperty(partner.id);
    const row = tonight(propertyId, 'BK-1', 'Direct');
    const file = await writeRows([row]);
    expect((await importAsProcess(propertyId, file)).code).toBe(0);
    expect(await storedReservation(propertyId, 'BK-1')).toMatchObject({
      channel: 'Direct',
      operatorVersion: 1,
    });

    // Act: the platform's own first version of the same reservation, on another channel.
    await platformPublishes(asEvent({ ...row, channel: 'Airbnb' }, 1));

    // Assess: applied, not dead-lettered; the import's version kept apart.
    expect((await signalsOf(propertyId)).source_mix).toEqual({ Airbnb: 1 });
    expect(await storedReservation(propertyId, 'BK-1')).toMatchObject({
      channel: 'Airbnb',
      version: 1,
      operatorVersion: 1,
    });
    expect(await failedAbout(propertyId)).toEqual([]);

    // The same file again differs from what is stored: a second version of the operators' own.
    const again = await importAsProcess(propertyId, file);
    expect(JSON.parse(again.stdout)).toEqual({ published: 1, unchanged: 0, applied: true });
    expect((await signalsOf(propertyId)).source_mix).toEqual({ Direct: 1 });
    const reimported = await storedReservation(propertyId, 'BK-1');
    expect(reimported).toMatchObject({ channel: 'Direct', version: 1, operatorVersion: 2 });

    // The operators' version 2 delivered again: a duplicate, nothing written.
    await putOnTheBus(OPERATOR_EVENT_SOURCE, asEvent(row, 2));
    expect(await storedReservation(propertyId, 'BK-1')).toEqual(reimported);
    // The platform's version 1 delivered again: a duplicate too; the import stands.
    await platformPublishes(asEvent({ ...row, channel: 'Airbnb' }, 1));
    expect(await storedReservation(propertyId, 'BK-1')).toEqual(reimported);
    expect(await failedAbout(propertyId)).toEqual([]);
  });

  it('a host-platform event never passes as an operator one, and the operators’ source sends nothing but reservations', async () => {
    // Prepare: an imported reservation at the operators' version 1.
    const { propertyId } = await sponsoredProperty(partner.id);
    const row = tonight(propertyId, 'BK-2', 'Direct');
    expect((await importAsProcess(propertyId, await writeRows([row]))).code).toBe(0);

    // Act: the platform's version 1 saying something else, which would disagree with the operators'
    // version 1 if it were judged against it; an events file that names a source; the operators'
    // source sending a property's change.
    await platformPublishes(asEvent({ ...row, channel: 'Vrbo' }, 1));
    const sourced = join(folder(), 'sourced.jsonl');
    await writeFile(sourced, `${JSON.stringify({ source: OPERATOR_EVENT_SOURCE, ...asEvent(row, 2) })}\n`);
    const refused = await adminProcess(
      inject('localDirectory'),
      ['events', 'publish', '--file', sourced],
      60_000,
    );
    await putOnTheBus(OPERATOR_EVENT_SOURCE, {
      type: 'PropertyUpdated',
      detail: { property_id: propertyId, version: 1, units: 9 },
    });

    // Assess: the platform's event applied in the platform's sequence; the file was refused before
    // sending; the operators' PropertyUpdated was dead-lettered with the reason.
    expect(await storedReservation(propertyId, 'BK-2')).toMatchObject({
      channel: 'Vrbo',
      version: 1,
      operatorVersion: 1,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a line holds only "detail-type" and "detail"');
    const failed = await failedAbout(propertyId);
    expect(failed.map((event) => [event.detail_type, event.reason])).toEqual([
      [
        'PropertyUpdated',
        expect.stringContaining(`source "${OPERATOR_EVENT_SOURCE}" sends only ReservationChanged`),
      ],
    ]);
    expect((await signalsOf(propertyId)).occupancy_today).toBe(1);
  });
});
