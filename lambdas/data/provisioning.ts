import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '../../core/contract/service-events';
import type { ProductId } from '../../core/domain/catalog';
import type { Language } from '../../core/domain/languages';
import { isRetryableCancellation, transactionCancellationCodes } from '../common/aws-errors';
import { pauseBeforeRetry } from '../common/backoff';
import type { ConsumedNonce } from './activation-nonces';
import { getConsumedNonce, nonceConsumptionItem } from './activation-nonces';
import { auditEventItem } from './audit';
import { allocateId } from './counters';
import { dynamoDb, MAX_TRANSACTION_ITEMS, type TransactItem } from './db';
import { getHostIdByEmail, hostCreationItems, hostSponsoredItems } from './hosts';
import { outboxEventItem } from './outbox';
import { partnerNotSuspendedItem } from './partners';
import type { Property } from './properties';
import {
  getPropertyIdForPmsHotel,
  getPropertyOfPartner,
  propertyCreationItems,
  propertyOwnerCheckItem,
} from './properties';
import type { SeatStatus } from './seats';
import { listSeatsOfProperty, seatActivationItem, seatChosenAgainItem } from './seats';
import type { Sponsorship } from './sponsorships';
import { getSponsorship, resumedPropertyItems, resumeLater, sponsorshipSeatsItem } from './sponsorships';

export interface ProvisioningRequest {
  readonly partnerId: number;
  readonly contactEmail: string;
  readonly contactName: string;
  readonly pmsHotelId: string;
  readonly propertyName: string;
  readonly productIds: readonly ProductId[];
  /** The language the host used the pages in (`HostProvisioned` tells the platform). @default 'en' */
  readonly language?: Language;
  /**
   * The activation link's nonce: consumed in the same transaction, so a link provisions once,
   * with the host session that used it.
   */
  readonly nonce?: { readonly value: string; readonly tokenExpiresAtMs: number; readonly sessionId?: string };
  readonly nowMs: number;
  /** Records `host.provisioned` in the same transaction: who (the host) and the page request. */
  readonly audit?: { readonly actor: string; readonly requestId?: string };
}

export interface ProvisioningResult {
  readonly hostUserId: number;
  readonly propertyId: number;
  readonly activatedProductIds: readonly ProductId[];
  /** True when this link had already provisioned: the earlier result is returned unchanged. */
  readonly alreadyProvisioned: boolean;
  /** The host session that used the link (this request's, unless it had already provisioned). */
  readonly sessionId?: string;
}

/** The property for this `pms_hotel_id` belongs to another host account of the partner. */
export class PropertyHeldByAnotherHostError extends Error {
  constructor() {
    super('The property is already sponsored for another host account.');
    this.name = 'PropertyHeldByAnotherHostError';
  }
}

/** Concurrent provisioning kept winning the race; the caller should ask to try again. */
export class ProvisioningContentionError extends Error {
  constructor() {
    super('Provisioning kept conflicting with concurrent requests.');
    this.name = 'ProvisioningContentionError';
  }
}

const MAX_ATTEMPTS = 4;

/** The link's partner is suspended: nothing was provisioned. */
export class PartnerSuspendedError extends Error {
  override readonly name = 'PartnerSuspendedError';
}

/** The result a link's earlier, committed provisioning recorded under its nonce. */
function earlierResult(consumed: ConsumedNonce): ProvisioningResult {
  const { hostUserId, propertyId, activatedProductIds, sessionId } = consumed;
  return {
    hostUserId,
    propertyId,
    activatedProductIds,
    alreadyProvisioned: true,
    ...(sessionId ? { sessionId } : {}),
  };
}

/** What one attempt read: the host and property that exist already, and the ids it goes on with. */
interface ProvisioningState {
  readonly existingHostId: number | undefined;
  readonly existingPropertyId: number | undefined;
  /** The partner's item of the existing property, as read (its name, its provisionings). */
  readonly existingProperty: Property | undefined;
  readonly hostUserId: number;
  readonly propertyId: number;
  readonly seats: ReadonlyMap<ProductId, SeatStatus>;
  /** The host's sponsorship by this partner, read when the host exists (an ended one is sponsored again). */
  readonly sponsorship: Sponsorship | undefined;
}

/** Which seats the transaction activates, and which it records as chosen again. */
interface SeatChanges {
  readonly alreadyActive: readonly ProductId[];
  readonly newProducts: readonly ProductId[];
  readonly activatedProductIds: readonly ProductId[];
}

/** What one attempt provisions: the request, what it read and the seats it decided on. */
interface ProvisioningPlan extends ProvisioningState, SeatChanges {
  readonly request: ProvisioningRequest;
  readonly nowIso: string;
}

/** The items of one attempt's transaction, and where the checks whose failure has a meaning sit. */
interface ProvisioningTransaction {
  readonly items: TransactItem[];
  readonly nonceIndex: number;
  readonly partnerCheckIndex: number;
  /** The ended sponsorship's other properties that did not fit: resumed after the commit. */
  readonly resumeLater: TransactItem[];
}

/** An attempt that lost a race and wrote nothing: the next attempt reads again. */
const TRY_AGAIN = Symbol('try again');

/**
 * Creates (or links) the host account, the sponsorship, the property, one seat per newly
 * activated product and the used nonce in one DynamoDB transaction (docs/design/activation-links.md).
 * Every create is guarded by a condition, so a lost race cancels the whole transaction; the
 * next attempt re-reads and links what the winner created.
 */
export async function provisionSponsoredHost(request: ProvisioningRequest): Promise<ProvisioningResult> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const outcome = await attemptProvisioning(request, attempt);
    if (outcome !== TRY_AGAIN) return outcome;
  }
  throw new ProvisioningContentionError();
}

/** One attempt: read, decide the seats, build the transaction, commit it. */
async function attemptProvisioning(
  request: ProvisioningRequest,
  attempt: number,
): Promise<ProvisioningResult | typeof TRY_AGAIN> {
  const { partnerId, nonce } = request;
  if (nonce) {
    const consumed = await getConsumedNonce(partnerId, nonce.value);
    if (consumed) return earlierResult(consumed);
  }
  const state = await readProvisioningState(request, attempt);
  if (state === TRY_AGAIN) return TRY_AGAIN;
  const plan: ProvisioningPlan = {
    request,
    nowIso: new Date(request.nowMs).toISOString(),
    ...state,
    ...seatChanges(request.productIds, state.seats),
  };
  return commitProvisioning(plan, provisioningTransaction(plan), attempt);
}

/**
 * Reads the host account of the e-mail and the property of the hotel, allocating ids for those
 * that do not exist yet, and the property's seats. A property held by another host is refused, unless
 * the reads may have straddled another provisioning's commit (then the attempt is tried again).
 */
async function readProvisioningState(
  request: ProvisioningRequest,
  attempt: number,
): Promise<ProvisioningState | typeof TRY_AGAIN> {
  const { partnerId } = request;
  const [existingHostId, existingPropertyId] = await Promise.all([
    getHostIdByEmail(request.contactEmail),
    getPropertyIdForPmsHotel(partnerId, request.pmsHotelId),
  ]);
  const hostUserId = existingHostId ?? (await allocateId('host'));
  const propertyId = existingPropertyId ?? (await allocateId('property'));
  let seats = new Map<ProductId, SeatStatus>();
  let property: Property | undefined;
  if (existingPropertyId !== undefined) {
    // Strongly consistent: a property created a moment ago by another host must be seen here.
    // One whose sponsorship ended is found too: provisioning sponsors it again.
    property = await getPropertyOfPartner(partnerId, existingPropertyId, {
      consistent: true,
      includeEnded: true,
    });
    if (property && property.hostUserId !== hostUserId) {
      // The reads can straddle another provisioning's commit: the e-mail claim read before it
      // (no account yet), the property after it. Read again (the nonce first) before refusing.
      if (existingHostId === undefined && attempt < MAX_ATTEMPTS - 1) return TRY_AGAIN;
      throw new PropertyHeldByAnotherHostError();
    }
    seats = await listSeatsOfProperty(partnerId, existingPropertyId);
  }
  // An ended sponsorship is sponsored again: its other properties come back with it.
  const sponsorship =
    existingHostId === undefined ? undefined : await getSponsorship(partnerId, existingHostId);
  return {
    existingHostId,
    existingPropertyId,
    existingProperty: property,
    hostUserId,
    propertyId,
    seats,
    sponsorship,
  };
}

/** The requested products without an active seat get one; the active ones stay. */
function seatChanges(
  requested: readonly ProductId[],
  seats: ReadonlyMap<ProductId, SeatStatus>,
): SeatChanges {
  const alreadyActive = [...seats].filter(([, status]) => status === 'active').map(([product]) => product);
  const newProducts = [...new Set(requested)].filter((product) => !alreadyActive.includes(product));
  return { alreadyActive, newProducts, activatedProductIds: [...alreadyActive, ...newProducts] };
}

/**
 * The transaction's items: host, sponsorship, property, seats, then the link's nonce and partner
 * check, the audit event, and as many of an ended sponsorship's other properties as fit.
 */
function provisioningTransaction(plan: ProvisioningPlan): ProvisioningTransaction {
  const { request, hostUserId, propertyId, sponsorship, nowIso } = plan;
  const items = [
    ...hostItems(plan),
    sponsorshipSeatsItem(
      request.partnerId,
      hostUserId,
      propertyId,
      plan.newProducts.length,
      nowIso,
      sponsorship?.endedAt,
    ),
    ...propertyItems(plan),
    ...seatItems(plan),
  ];
  const nonceIndex = items.length;
  const partnerCheckIndex = nonceIndex + 1;
  if (request.nonce) items.push(...linkItems(plan, request.nonce));
  if (request.audit) items.push(provisionedAuditItem(plan, request.audit));
  // What the platform hears of it, committed with it (docs/design/events.md#what-this-service-sends).
  items.push(outboxEventItem(hostProvisionedEvent(plan)));
  const resumed =
    sponsorship?.endedAt === undefined
      ? { now: [], later: [] }
      : resumedPropertyItems(sponsorship, propertyId, MAX_TRANSACTION_ITEMS - items.length);
  items.push(...resumed.now);
  return { items, nonceIndex, partnerCheckIndex, resumeLater: resumed.later };
}

/** A new host account, or the existing one now sponsored by this partner. */
function hostItems({
  request,
  existingHostId,
  hostUserId,
  propertyId,
  nowIso,
}: ProvisioningPlan): TransactItem[] {
  const sponsored = { partnerId: request.partnerId, propertyId };
  return existingHostId === undefined
    ? hostCreationItems(
        { id: hostUserId, email: request.contactEmail.trim(), name: request.contactName, createdAt: nowIso },
        sponsored,
      )
    : hostSponsoredItems(request.contactEmail, hostUserId, sponsored);
}

/** A new property, or a check that the existing one is still this host's when the transaction commits. */
function propertyItems(plan: ProvisioningPlan): TransactItem[] {
  const { request, existingPropertyId, existingProperty, hostUserId, propertyId, nowIso } = plan;
  const { partnerId } = request;
  return existingPropertyId !== undefined
    ? [propertyOwnerCheckItem(partnerId, existingPropertyId, hostUserId, existingProperty?.provisionVersion)]
    : propertyCreationItems({
        id: propertyId,
        partnerId,
        hostUserId,
        name: request.propertyName,
        units: 1,
        pmsHotelId: request.pmsHotelId,
        createdAt: nowIso,
        provisionVersion: 1,
      });
}

/**
 * `HostProvisioned`: the ids the platform must use in its own events, who the host is, and the
 * products chosen. Its version counts the property's provisionings under this partner (the next
 * after the one read; the property's item is conditioned on it).
 */
function hostProvisionedEvent(plan: ProvisioningPlan): ServiceEvent<'HostProvisioned'> {
  const { request, existingHostId, existingProperty, hostUserId, propertyId, nowIso } = plan;
  return {
    type: 'HostProvisioned',
    detail: {
      event_id: randomUUID(),
      host_user_id: hostUserId,
      partner_id: request.partnerId,
      account: existingHostId === undefined ? 'created' : 'linked',
      contact_email: request.contactEmail.trim(),
      contact_name: request.contactName,
      language: request.language ?? 'en',
      property: {
        property_id: propertyId,
        pms_hotel_id: request.pmsHotelId,
        name: existingProperty?.name ?? request.propertyName,
      },
      products: [...new Set(request.productIds)],
      version: (existingProperty?.provisionVersion ?? 0) + 1,
      occurred_at: nowIso,
    },
  };
}

/** A seat activated per new product, and the requested products already active chosen again. */
function seatItems(plan: ProvisioningPlan): TransactItem[] {
  const { request, hostUserId, propertyId, seats, nowIso } = plan;
  const { partnerId } = request;
  return [
    ...plan.newProducts.map((productId) =>
      seatActivationItem(
        { partnerId, propertyId, hostUserId, productId, activatedAt: nowIso },
        seats.get(productId),
      ),
    ),
    ...plan.alreadyActive
      .filter((productId) => request.productIds.includes(productId))
      .map((productId) => seatChosenAgainItem({ partnerId, propertyId, productId }, nowIso)),
  ];
}

/**
 * The link's nonce, consumed with the result it provisioned, and a check that its partner is not
 * suspended: a link provisions only while it is not (the pages' cached partner may be older).
 */
function linkItems(plan: ProvisioningPlan, nonce: NonNullable<ProvisioningRequest['nonce']>): TransactItem[] {
  const { partnerId } = plan.request;
  return [
    nonceConsumptionItem(
      {
        partnerId,
        nonce: nonce.value,
        hostUserId: plan.hostUserId,
        propertyId: plan.propertyId,
        activatedProductIds: plan.activatedProductIds,
        consumedAt: plan.nowIso,
        ...(nonce.sessionId ? { sessionId: nonce.sessionId } : {}),
      },
      nonce.tokenExpiresAtMs,
    ),
    partnerNotSuspendedItem(partnerId),
  ];
}

/** `host.provisioned`: the host who used the link, the page request and the products it activated. */
function provisionedAuditItem(
  plan: ProvisioningPlan,
  audit: NonNullable<ProvisioningRequest['audit']>,
): TransactItem {
  const { partnerId, nonce } = plan.request;
  return auditEventItem({
    at: plan.nowIso,
    actor: audit.actor,
    action: 'host.provisioned',
    partnerId,
    hostId: plan.hostUserId,
    propertyId: plan.propertyId,
    ...(nonce ? { linkNonce: nonce.value } : {}),
    ...(audit.requestId ? { requestId: audit.requestId } : {}),
    details: { products: plan.newProducts },
  });
}

/**
 * Commits the transaction. A conflict with another transaction pauses and tries again; a failed
 * condition means a lost race (tried again), the link already used (its earlier result) or the
 * partner suspended.
 */
async function commitProvisioning(
  plan: ProvisioningPlan,
  transaction: ProvisioningTransaction,
  attempt: number,
): Promise<ProvisioningResult | typeof TRY_AGAIN> {
  const { request, hostUserId, propertyId, nowIso } = plan;
  const { partnerId, nonce } = request;
  try {
    await dynamoDb().send(new TransactWriteCommand({ TransactItems: transaction.items }));
    if (transaction.resumeLater.length > 0) {
      await resumeLater(partnerId, hostUserId, nowIso, transaction.resumeLater);
    }
    return {
      hostUserId,
      propertyId,
      activatedProductIds: plan.activatedProductIds,
      alreadyProvisioned: false,
      ...(nonce?.sessionId ? { sessionId: nonce.sessionId } : {}),
    };
  } catch (error) {
    const codes = transactionCancellationCodes(error);
    if (isRetryableCancellation(error)) {
      // Another transaction held one of these items: nothing was written; try again shortly.
      await pauseBeforeRetry(attempt + 1, 20);
      return TRY_AGAIN;
    }
    if (!codes?.includes('ConditionalCheckFailed')) throw error;
    if (nonce && codes[transaction.nonceIndex] === 'ConditionalCheckFailed') {
      const consumed = await getConsumedNonce(partnerId, nonce.value);
      if (consumed) return earlierResult(consumed);
    }
    if (nonce && codes[transaction.partnerCheckIndex] === 'ConditionalCheckFailed') {
      throw new PartnerSuspendedError();
    }
    // Lost a race on the e-mail, the property or a seat: the next attempt links to the winner's items.
    return TRY_AGAIN;
  }
}
