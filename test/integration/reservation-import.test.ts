import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../cli/cli';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { OPERATOR_EVENT_SOURCE } from '../../core/contract/platform-events';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { MAX_CHANNELS_PER_MONTH } from '../../core/domain/reservations';
import { serviceConfig } from '../../lambdas/common/config';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { findPropertyById } from '../../lambdas/data/properties';
import { eventsApplied } from '../../operations/events';
import { adminJson, adminProcess } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';

let partner: TestPartner;
let folder: string;

beforeAll(async () => {
  partner = await approvedPartner();
  folder = await mkdtemp(join(tmpdir(), 'reservation-import-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A whole month of 31 days that ended before today, within the last year (first day number). */
function past31DayMonth(): number {
  const now = new Date();
  for (let back = 1; ; back++) {
    const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
    const start = new Date(first);
    if (new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 31)).getUTCDate() === 31)
      return first / DAY_MS;
  }
}

/** The longest channel name the parser accepts, in bytes: 64 characters of 3 UTF-8 bytes each. */
function worstCaseChannel(index: number): string {
  return `${'€'.repeat(63)}${String.fromCharCode(0x4e00 + index)}`;
}

/** One confirmed reservation per channel and per day of the month, each for one night. */
function monthOfBookings(propertyId: number, firstDay: number, channels: readonly string[], tag: string) {
  const rows: Reservation[] = [];
  for (let day = firstDay; day < firstDay + 31; day++) {
    channels.forEach((channel, index) => {
      rows.push({
        id: `${tag}-${day}-${index}`,
        property_id: propertyId,
        channel,
        booked_at: new Date(day * DAY_MS + 10 * 3_600_000).toISOString(),
        check_in: isoDate(day + 7),
        check_out: isoDate(day + 8),
        status: 'confirmed',
      });
    });
  }
  return rows;
}

async function writeRows(rows: unknown, prefix = ''): Promise<string> {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, `${prefix}${JSON.stringify(rows)}`);
  return file;
}

/** `npm run admin -- reservations import` as a real process. */
async function importAsProcess(propertyId: number, file: string, ...extra: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      join('node_modules', '.bin', 'tsx'),
      [
        'bin/admin.ts',
        'reservations',
        'import',
        '--property',
        String(propertyId),
        '--file',
        file,
        '--json',
        '--wait',
        ...extra,
      ],
      {
        env: { ...process.env, PARTNER_API_LOCAL_DIR: inject('localDirectory') },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The same import in-process (same code path as `npm run admin`). */
async function importInProcess(propertyId: number, file: string, ...extra: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    [
      'reservations',
      'import',
      '--property',
      String(propertyId),
      '--file',
      file,
      '--json',
      '--wait',
      ...extra,
    ],
    { out: (text) => out.push(text), err: (text) => err.push(text) },
  );
  return { code, stdout: out.join(''), stderr: err.join('\n') };
}

/** What imports store in a property's partition: reservations and aggregate items (not the property's own item). */
async function storedItemsOf(propertyId: number) {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :property',
      ExpressionAttributeValues: { ':property': `PROPERTY#${propertyId}` },
      ProjectionExpression: 'SK',
    }),
  );
  return Items.map((item) => String(item.SK)).filter((sk) => sk !== 'PROPERTY');
}

describe('booking channels per property and month', () => {
  it('refuses a file whose channels would overflow the month aggregate, before writing anything, on every retry', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const month = past31DayMonth();
    // 80 channels of 64 three-byte characters on each of 31 days: about 480 KB of attribute names alone,
    // more than DynamoDB's 400 KB item limit for the BOOKED# item of that month.
    const channels = Array.from({ length: 80 }, (_, index) => worstCaseChannel(index));
    const file = await writeRows(monthOfBookings(propertyId, month, channels, 'wide'));
    const unitsBefore = (await findPropertyById(propertyId))?.units;

    const first = await importAsProcess(propertyId, file, '--units', '7');
    const retry = await importAsProcess(propertyId, file, '--units', '7');

    for (const attempt of [first, retry]) {
      expect(attempt.code).toBe(1);
      expect(attempt.stdout).toBe('');
      expect(attempt.stderr).toContain('Nothing was imported');
      expect(attempt.stderr).toContain(`property ${propertyId}`);
      expect(attempt.stderr).toContain(isoDate(month).slice(0, 7));
      expect(attempt.stderr).toContain(`at most ${MAX_CHANNELS_PER_MONTH}`);
      expect(attempt.stderr).not.toContain('ValidationError');
    }
    expect(retry.stderr).toBe(first.stderr);
    expect(await storedItemsOf(propertyId)).toEqual([]);
    expect((await findPropertyById(propertyId))?.units).toBe(unitsBefore);
    const signals = await apiGet(`/properties/${propertyId}/pricing-signals?lookback_days=365`, partner.key);
    expect((signals.json.signals as { total_reservations: number }).total_reservations).toBe(0);
  });

  it('accepts exactly the cap of longest channel names on every day of a month, in an item well under 400 KB', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const month = past31DayMonth();
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => worstCaseChannel(index));
    const rows = monthOfBookings(propertyId, month, channels, 'cap');

    const result = await importInProcess(propertyId, await writeRows(rows));

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ published: rows.length, unchanged: 0, applied: true });
    // Measured by DynamoDB itself: a strongly consistent read costs one unit per started 4 KB.
    const read = await dynamoDb().send(
      new GetCommand({
        TableName: tableName(),
        Key: { PK: `PROPERTY#${propertyId}`, SK: `BOOKED#${isoDate(month).slice(0, 7)}` },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    const attributes = Object.keys(read.Item ?? {});
    const nameBytes = attributes.reduce((sum, name) => sum + Buffer.byteLength(name), 0);
    const measuredAtMost = (read.ConsumedCapacity?.CapacityUnits ?? Number.NaN) * 4096;

    expect(attributes.filter((name) => name.startsWith('c'))).toHaveLength(31 * MAX_CHANNELS_PER_MONTH);
    // Names alone (115,727 bytes here) plus one byte or more per value: within DynamoDB's measure...
    expect(nameBytes + attributes.length).toBeLessThanOrEqual(measuredAtMost);
    // ...which is within the worst case of MAX_CHANNELS_PER_MONTH's arithmetic, a third of 400 KB.
    expect(measuredAtMost).toBeLessThanOrEqual(
      Math.ceil((2_275 + 6_727 * MAX_CHANNELS_PER_MONTH) / 4096) * 4096,
    );
    expect(measuredAtMost).toBeLessThan((400 * 1024) / 3);
  });

  it('counts the channels already stored for the month: one more channel later is refused and nothing of it is stored', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const month = past31DayMonth();
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => `Channel ${index}`);
    const first = await importInProcess(
      propertyId,
      await writeRows(monthOfBookings(propertyId, month, channels, 'a')),
    );
    expect(first.code).toBe(0);
    const before = await storedItemsOf(propertyId);
    const extra: Reservation = {
      id: 'one-more',
      property_id: propertyId,
      channel: 'One channel too many',
      booked_at: new Date((month + 20) * DAY_MS).toISOString(),
      check_in: isoDate(month + 25),
      check_out: isoDate(month + 26),
      status: 'confirmed',
    };

    const refused = await importInProcess(propertyId, await writeRows([extra]));
    const again = await importInProcess(propertyId, await writeRows([extra]));
    // An existing channel on another day of the month is still fine.
    const existing = await importInProcess(
      propertyId,
      await writeRows([{ ...extra, id: 'existing-channel', channel: 'Channel 3' }]),
    );

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${MAX_CHANNELS_PER_MONTH + 1} booking channels in ${isoDate(month).slice(0, 7)}`,
    );
    expect(again.stderr).toBe(refused.stderr);
    expect(existing.code).toBe(0);
    expect(await storedItemsOf(propertyId)).toEqual([...before, 'RES#existing-channel'].sort());
  });
});

describe('reading the import file', () => {
  it('refuses a file over the size limit from its size alone, without reading it', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const file = join(folder, 'huge.json');
    // A sparse 3 GiB file: no disk space, far over 50 MB, and more than one string can hold: read whole, it fails.
    const handle = await open(file, 'w');
    await handle.truncate(3 * 1024 ** 3);
    await handle.close();

    const started = Date.now();
    const result = await importInProcess(propertyId, file);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is larger than 50 MB');
    expect(result.stderr).toContain('split it into several files');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await storedItemsOf(propertyId)).toEqual([]);
  });

  it('accepts a file that starts with a UTF-8 byte order mark', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const day = Math.floor(Date.now() / DAY_MS) - 3;
    const row: Reservation = {
      id: 'bom',
      property_id: propertyId,
      channel: 'Direct',
      booked_at: new Date(day * DAY_MS).toISOString(),
      check_in: isoDate(day + 5),
      check_out: isoDate(day + 7),
      status: 'confirmed',
    };

    const result = await importInProcess(propertyId, await writeRows([row], '\uFEFF'));

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ published: 1, unchanged: 0, applied: true });
  });
});

describe('files named on the command line', () => {
  it('reads a relative --file from the folder npm was started in (INIT_CWD), not the package folder', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const row: Reservation = {
      id: 'relative-1',
      property_id: propertyId,
      channel: 'Direct',
      booked_at: new Date(Date.now() - DAY_MS).toISOString(),
      check_in: isoDate(Math.floor(Date.now() / DAY_MS) + 3),
      check_out: isoDate(Math.floor(Date.now() / DAY_MS) + 5),
      status: 'confirmed',
    };
    await writeFile(join(folder, 'from-my-folder.json'), JSON.stringify([row]));
    const previous = process.env.INIT_CWD;
    process.env.INIT_CWD = folder;
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await runCli(
        [
          'reservations',
          'import',
          '--property',
          String(propertyId),
          '--file',
          'from-my-folder.json',
          '--json',
        ],
        { out: (text) => out.push(text), err: (text) => err.push(text) },
      );

      expect(code, err.join('\n')).toBe(0);
      expect(JSON.parse(out.join(''))).toMatchObject({ published: 1 });
    } finally {
      if (previous === undefined) delete process.env.INIT_CWD;
      else process.env.INIT_CWD = previous;
    }
  });
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
    const file = join(folder, `${Math.random().toString(36).slice(2)}.jsonl`);
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
    const sourced = join(folder, 'sourced.jsonl');
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
