import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { PlatformEvent } from '../../core/contract/platform-events';
import { dynamoDb } from '../../lambdas/data/db';
import { admin, adminJson } from './cli';
import type { TestPartner } from './partners';
import { apiGet, approvedPartner } from './partners';

/*
 * The files of test/integration/platform-events-*.test.ts test the platform's events through
 * `npm run admin -- events publish` on the suite's local server, as docs/design/events.md has them:
 * each row of the contract changes the API as stated, duplicates and older versions change nothing,
 * and an event that cannot apply is listed by `events failed` with its reason while the rest of its
 * file applies.
 */

/**
 * What the files of test/integration/platform-events-*.test.ts share: a partner with three products
 * whose properties their events are about, a folder for the event files they publish (both made
 * before a file's tests and removed after), and the reads they judge the API by.
 */
export let partner: TestPartner;
export let folder: string;

/** Registers the making and removing of `partner` and `folder` for the calling file (one of those above). */
export function preparePlatformEvents(): void {
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'platform-events-'));
    partner = await approvedPartner({ products: ['assistant', 'upsells', 'guidebook'] });
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });
}

export const line = (event: PlatformEvent) =>
  JSON.stringify({ 'detail-type': event.type, detail: event.detail });

/** `events publish --file … --wait`: the events sent and applied (or dead-lettered). */
export async function publish(...events: PlatformEvent[]) {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.jsonl`);
  await writeFile(file, `${events.map(line).join('\n')}\n`);
  const published = await admin('events', 'publish', '--file', file, '--wait', '--json');
  const result = JSON.parse(published.stdout);
  expect(result).toMatchObject({ accepted: events.length, applied: true });
  // A file that did not apply whole is a failure a script sees.
  expect(published.code).toBe(result.refused > 0 ? 1 : 0);
  return result;
}

export async function usageOf(key: string) {
  const { status, json } = await apiGet('/usage', key);
  expect(status).toBe(200);
  return json as { active_seats: number; hosts: { host_user_id: number; active_seats: number }[] };
}

export const seatsOfHost = async (key: string, hostId: number) =>
  (await usageOf(key)).hosts.find((host) => host.host_user_id === hostId)?.active_seats;

export async function propertyIds(key: string, query = '') {
  const { status, json } = await apiGet(`/properties${query}`, key);
  expect(status).toBe(200);
  return (json.properties as { id: number; name: string }[]).map((property) => property.id);
}

/**
 * The dead-lettered events about a property or host, as `events failed` lists them. A listing hides
 * the messages it reads while it reads them (SQS has no other way to look), so another file's
 * listing at the same moment (an `events failed`, a `publish --wait`) can hide ours: while none is
 * found, it looks again a second later, three times in all, as `publish --wait` does.
 */
export async function failedEventsAbout(propertyOrHost: { key: string; id: number }) {
  let found: FailedEvent[] = [];
  for (let look = 1; look <= 3 && found.length === 0; look++) {
    if (look > 1) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const { events } = (await adminJson('events', 'failed')) as { events: FailedEvent[] };
    found = events.filter((event) => event.detail[propertyOrHost.key] === propertyOrHost.id);
  }
  return found;
}

interface FailedEvent {
  detail_type: string;
  detail: Record<string, unknown>;
  reason: string;
  event_id: string | null;
}

/**
 * Runs `act` while a second writer does `meanwhile` once, right before (or right after) the first
 * DynamoDB transaction whose request holds every marker: a race, made to happen every time.
 */
export async function racing<T>(
  race: { markers: string[]; timing: 'before' | 'after'; meanwhile: () => Promise<unknown> },
  act: () => Promise<T>,
): Promise<{ result: T; meanwhile: unknown }> {
  let meanwhile: { outcome: unknown } | undefined;
  const name = `race-${Math.random()}`;
  const run = async () => {
    meanwhile = { outcome: undefined };
    meanwhile.outcome = await race.meanwhile().catch((error: unknown) => error);
  };
  dynamoDb().middlewareStack.add(
    (next) => async (args) => {
      const input = JSON.stringify(args.input);
      const matches =
        meanwhile === undefined &&
        input.includes('TransactItems') &&
        race.markers.every((marker) => input.includes(marker));
      if (matches && race.timing === 'before') await run();
      const output = await next(args);
      if (matches && race.timing === 'after') await run();
      return output;
    },
    { step: 'initialize', name },
  );
  try {
    const result = await act();
    expect(meanwhile, 'the race did not happen').toBeDefined();
    return { result, meanwhile: meanwhile?.outcome };
  } finally {
    dynamoDb().middlewareStack.remove(name);
  }
}

/** Now (to the millisecond, as the platform may send it), or minutes from now. */
export const at = (offsetMinutes = 0) => new Date(Date.now() + offsetMinutes * 60_000).toISOString();
