/**
 * Runs against a separate local server's DynamoDB (its folder in PARTNER_API_LOCAL_DIR):
 *   prepare <keys> <links>  → mints keys for the demo partners and activation links; prints JSON
 *   import <propertyId> <count> <idPrefix> → imports confirmed reservations booked in the last year,
 *     as operators do (events, a hundred rows at a time), waits until they are applied and counts them
 */

import { BASE_SCOPES, SCOPES } from '../../core/domain/scopes';
import { localDirectory, readRuntime } from '../../emulator/runtime';
import { localEnvironment } from '../../emulator/service';
import { useServiceEnvironment } from '../../lambdas/common/config';

const runtime = await readRuntime(localDirectory());
if (!runtime)
  throw new Error('No running local server in PARTNER_API_LOCAL_DIR (no live runtime/<pid>.json)');
useServiceEnvironment(localEnvironment(runtime));
const [mode = '', ...args] = process.argv.slice(2);

if (mode === 'prepare') {
  const { extraKeysFor } = await import('./keys');
  const { createActivationLink } = await import('../../operations/links');
  const { outboxMailer } = await import('../../operations/mailer');
  const [keyCount = '0', linkCount = '0'] = args;
  const keys = await extraKeysFor(1, Number(keyCount), [...SCOPES]);
  const metricsOnlyKeys = await extraKeysFor(2, 20, [...BASE_SCOPES]);
  const target = {
    stage: 'local' as const,
    actor: 'load-test',
    apiBaseUrl: runtime.apiBaseUrl,
    activationBaseUrl: runtime.activationBaseUrl,
    mailer: outboxMailer(runtime.outboxDirectory),
  };
  const links: string[] = [];
  for (let i = 0; i < Number(linkCount); i++) {
    const { url } = await createActivationLink(
      target,
      {
        slug: 'demo-pms',
        email: `load-${i}@example.com`,
        name: `Load host ${i}`,
        pmsHotelId: `LOAD-${i}`,
        products: ['assistant', 'upsells'],
        ttlSeconds: 3_600,
      },
      Date.now(),
    );
    links.push(url);
  }
  process.stdout.write(JSON.stringify({ keys, metricsOnlyKeys, links }));
} else if (mode === 'import') {
  const { planReservationImport } = await import('../../lambdas/data/reservations/import-plan');
  const { findPropertyById } = await import('../../lambdas/data/properties');
  const { importEvents } = await import('../../operations/reservations');
  const { publishPlatformEvents, eventsApplied } = await import('../../operations/events');
  const { queryAll, tableName } = await import('../../lambdas/data/db');
  const [propertyId = '1', count = '0', idPrefix = 'load'] = args;
  const now = Date.now();
  const day = 86_400_000;
  const reservations = Array.from({ length: Number(count) }, (_, i) => {
    const bookedAt = now - ((i % 300) + 1) * day;
    const checkIn = new Date(bookedAt + 10 * day).toISOString().slice(0, 10);
    const checkOut = new Date(bookedAt + 12 * day).toISOString().slice(0, 10);
    return {
      id: `${idPrefix}-${i}`,
      property_id: Number(propertyId),
      channel: 'Direct',
      booked_at: new Date(bookedAt).toISOString(),
      check_in: checkIn,
      check_out: checkOut,
      status: 'confirmed' as const,
    };
  });
  // Several small imports, as operators do, interleaved with the load.
  const property = await findPropertyById(Number(propertyId));
  if (!property) throw new Error(`No property ${propertyId}`);
  let published = 0;
  for (let start = 0; start < reservations.length; start += 100) {
    const plan = await planReservationImport(property.id, reservations.slice(start, start + 100));
    published += (await publishPlatformEvents(importEvents(plan))).accepted;
  }
  await eventsApplied(120_000);
  const stored = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :property AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':property': `PROPERTY#${property.id}`, ':prefix': `RES#${idPrefix}-` },
    ProjectionExpression: 'SK',
  });
  process.stdout.write(JSON.stringify({ published, applied: stored.length }));
}
