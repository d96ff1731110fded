import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { expect } from 'vitest';
import type { PlatformEvent } from '../../../core/contract/platform-events';
import type { PricingSignalsResponse } from '../../../core/domain/pricing-signals';
import type { Reservation } from '../../../core/domain/reservations';
import { SCOPES } from '../../../core/domain/scopes';
import { handler as pricingSignalsHandler } from '../../../lambdas/api/pricing-signals';
import { handler as propertiesHandler } from '../../../lambdas/api/properties';
import { handler as usageHandler } from '../../../lambdas/api/usage';
import { dynamoDb } from '../../../lambdas/data/db';
import { lambdaContext, proxyEvent } from '../events';
import { expectSignalsClose, pricingOracle } from '../pricing-oracle';
import { scanAll } from '../scan';
import {
  appliedTo,
  MODEL_TABLE,
  type Model,
  type ModelPartner,
  type ModelProperty,
  type ModelSponsorship,
  PRODUCTS,
  type Product,
  propertyEntity,
  type Real,
  seatEntity,
  sponsorshipEntity,
  sponsorshipOf,
} from './model';

/*
 * What partners should read after every step of the platform's events model, and its check against the
 * real handlers.
 */

// --- What partners should read ----------------------------------------------------------------

function seatIsActive(model: Model, property: ModelProperty, product: Product): boolean {
  const events = appliedTo(model, seatEntity(property, product));
  const last = events.at(-1);
  const chosen = property.chosenAt.get(product);
  if (!last) return chosen !== undefined;
  if (last.type === 'SeatActivated') return true;
  return (
    last.type === 'SeatDeactivated' && chosen !== undefined && Date.parse(last.detail.occurred_at) <= chosen
  );
}

function sponsorshipEnded(model: Model, sponsorship: ModelSponsorship): boolean {
  const last = appliedTo(model, sponsorshipEntity(sponsorship)).at(-1);
  return (
    last?.type === 'SponsorshipEnded' && Date.parse(last.detail.occurred_at) > sponsorship.lastProvisionedAt
  );
}

export function visibleTo(model: Model, property: ModelProperty, partner: ModelPartner): boolean {
  const sponsorship = sponsorshipOf(model, property);
  return (
    property.partner === partner &&
    !property.host.erased &&
    sponsorship !== undefined &&
    !sponsorshipEnded(model, sponsorship)
  );
}

function expectedProperty(model: Model, property: ModelProperty) {
  const updates = appliedTo(model, propertyEntity(property)).filter(
    (event): event is Extract<PlatformEvent, { type: 'PropertyUpdated' }> => event.type === 'PropertyUpdated',
  );
  const name = updates.findLast((event) => event.detail.name !== undefined)?.detail.name;
  const units = updates.findLast((event) => event.detail.units !== undefined)?.detail.units;
  return { name: name ?? property.initialName, units: units ?? 1 };
}

function expectedReservations(model: Model, property: ModelProperty): Reservation[] {
  const prefix = `reservation:${property.id}:`;
  return [...model.applied.keys()]
    .filter((entity) => entity.startsWith(prefix))
    .flatMap((entity) => {
      const last = appliedTo(model, entity).at(-1);
      return last?.type === 'ReservationChanged'
        ? [{ ...last.detail.reservation, property_id: property.id }]
        : [];
    });
}

function expectedUsage(model: Model, partner: ModelPartner) {
  const hosts = model.sponsorships
    .filter((s) => s.partner === partner && !s.host.erased && !sponsorshipEnded(model, s))
    .map((s) => ({
      host_user_id: s.host.id,
      active_seats: model.properties
        .filter((p) => p.partner === partner && p.host === s.host)
        .reduce((sum, p) => sum + PRODUCTS.filter((product) => seatIsActive(model, p, product)).length, 0),
    }))
    .sort((a, b) => a.host_user_id - b.host_user_id);
  return { active_seats: hosts.reduce((sum, host) => sum + host.active_seats, 0), hosts };
}

// --- The real system, through its handlers -----------------------------------------------------

export type ApiHandler = (
  event: ReturnType<typeof proxyEvent>,
  context: typeof lambdaContext,
) => Promise<APIGatewayProxyResult>;

/** A partner API call through the real handler; a key prefix of its own, so no call meets the rate limit. */
export async function callApi(
  handler: ApiHandler,
  partner: ModelPartner,
  request: {
    path: string;
    resource: string;
    pathParameters?: Record<string, string>;
    query?: Record<string, string[]>;
  },
) {
  const response = await handler(
    proxyEvent({
      ...request,
      authorizer: {
        principalId: `partner:${partner.id}`,
        partnerId: String(partner.id),
        keyPrefix: `svc_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)}`,
        scopes: SCOPES.join(' '),
      },
    }),
    lambdaContext,
  );
  return {
    status: response.statusCode,
    json: JSON.parse(response.body || '{}'),
    headers: response.headers ?? {},
  };
}

export const tally = { runs: 0, steps: 0, delivered: 0, deadLettered: 0, erasures: 0, walks: 0 };

/**
 * The invariants. `changed: false` after a step that only publishes (nothing is delivered, so
 * nothing can change): the partners' lists and the dead letters are read, and the pricing
 * signals, the counters and the erasure scan are left for the steps that can change them.
 */
export async function checkInvariants(model: Model, real: Real, { changed = true } = {}): Promise<void> {
  tally.steps += 1;
  for (const partner of model.partners) {
    const usage = await callApi(usageHandler as ApiHandler, partner, {
      path: '/partner-api/v1/usage',
      resource: '/partner-api/v1/usage',
    });
    expect(usage.status).toBe(200);
    expect(
      { active_seats: usage.json.active_seats, hosts: usage.json.hosts },
      `usage of ${partner.label}`,
    ).toEqual(expectedUsage(model, partner));
    const list = await callApi(propertiesHandler as ApiHandler, partner, {
      path: '/partner-api/v1/properties',
      resource: '/partner-api/v1/properties',
    });
    expect(list.status).toBe(200);
    const expected = model.properties
      .filter((p) => visibleTo(model, p, partner))
      .map((p) => ({ id: p.id, name: expectedProperty(model, p).name }))
      .sort((a, b) => a.id - b.id);
    expect(list.json.properties, `properties of ${partner.label}`).toEqual(expected);
  }
  // Exactly the deliveries that had to be refused wait in the dead-letter queue (and those that may).
  const deadLetters = real.deadLetters.map(({ id }) => id);
  const optional = deadLetters.filter((id) => model.mayDeadLetter.includes(id));
  const reasons = real.deadLetters.map(({ id, reason }) => `${id}: ${reason}`).join('; ');
  expect(
    deadLetters.filter((id) => !optional.includes(id)).sort(),
    `dead-lettered events (${reasons})`,
  ).toEqual([...model.expectedDeadLetters].sort());
  if (!changed) return;
  // Each property's signals for the partner that sponsors it (another partner's 404 is the API
  // tests' business: it reads the same item, keyed by the caller).
  for (const property of model.properties) {
    for (const partner of [property.partner]) {
      const signals = await callApi(pricingSignalsHandler as ApiHandler, partner, {
        path: `/partner-api/v1/properties/${property.id}/pricing-signals`,
        resource: '/partner-api/v1/properties/{propertyId}/pricing-signals',
        pathParameters: { propertyId: String(property.id) },
      });
      if (!visibleTo(model, property, partner)) {
        expect(signals.status, `signals of property ${property.index} for ${partner.label}`).toBe(404);
        continue;
      }
      expect(signals.status, `signals of property ${property.index}: ${JSON.stringify(signals.json)}`).toBe(
        200,
      );
      const oracle = pricingOracle(
        property.id,
        expectedReservations(model, property),
        Date.now(),
        90,
        expectedProperty(model, property).units,
      );
      expectSignalsClose(signals.json as PricingSignalsResponse, oracle, expect);
    }
  }
  // No seat counter below zero, visible or not.
  for (const partner of model.partners) {
    const { Items = [] } = await dynamoDb().send(
      new QueryCommand({
        TableName: MODEL_TABLE,
        KeyConditionExpression: 'PK = :partner AND begins_with(SK, :host)',
        ExpressionAttributeValues: { ':partner': `PARTNER#${partner.id}`, ':host': 'HOST#' },
        ConsistentRead: true,
      }),
    );
    for (const item of Items)
      expect(Number(item.activeSeats), `counter of ${String(item.SK)}`).toBeGreaterThanOrEqual(0);
  }
  // Nothing of an erased host: no item holds its e-mail address, its name or its properties' names.
  const erased = model.hosts.filter((host) => host.erased);
  if (erased.length > 0) {
    const words = erased.flatMap((host) => [
      host.email.toLowerCase(),
      host.name.toLowerCase(),
      ...model.properties.filter((p) => p.host === host).map((p) => p.initialName.toLowerCase()),
    ]);
    for (const item of await scanAll({ TableName: MODEL_TABLE })) {
      const text = JSON.stringify(item).toLowerCase();
      for (const word of words)
        expect(text.includes(word), `${word} in ${String(item.PK)} ${String(item.SK)}`).toBe(false);
    }
  }
}
