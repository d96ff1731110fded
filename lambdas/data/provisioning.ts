import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../../core/domain/catalog';
import { isRetryableCancellation, transactionCancellationCodes } from '../common/aws-errors';
import { pauseBeforeRetry } from '../common/backoff';
import type { ConsumedNonce } from './activation-nonces';
import { getConsumedNonce, nonceConsumptionItem } from './activation-nonces';
import { auditEventItem } from './audit';
import { allocateId } from './counters';
import { dynamoDb, MAX_TRANSACTION_ITEMS } from './db';
import { getHostIdByEmail, hostCreationItems, hostSponsoredItems } from './hosts';
import { partnerNotSuspendedItem } from './partners';
import {
  getPropertyIdForPmsHotel,
  getPropertyOfPartner,
  propertyCreationItems,
  propertyOwnerCheckItem,
} from './properties';
import type { SeatStatus } from './seats';
import { listSeatsOfProperty, seatActivationItem, seatChosenAgainItem } from './seats';
import { getSponsorship, resumedPropertyItems, resumeLater, sponsorshipSeatsItem } from './sponsorships';

export interface ProvisioningRequest {
  readonly partnerId: number;
  readonly contactEmail: string;
  readonly contactName: string;
  readonly pmsHotelId: string;
  readonly propertyName: string;
  readonly productIds: readonly ProductId[];
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

/**
 * Creates (or links) the host account, the sponsorship, the property, one seat per newly
 * activated product and the used nonce in one DynamoDB transaction (docs/design/activation-links.md).
 * Every create is guarded by a condition, so a lost race cancels the whole transaction; the
 * next attempt re-reads and links what the winner created.
 */
export async function provisionSponsoredHost(request: ProvisioningRequest): Promise<ProvisioningResult> {
  const { partnerId, nonce } = request;
  const nowIso = new Date(request.nowMs).toISOString();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (nonce) {
      const consumed = await getConsumedNonce(partnerId, nonce.value);
      if (consumed) return earlierResult(consumed);
    }
    const [existingHostId, existingPropertyId] = await Promise.all([
      getHostIdByEmail(request.contactEmail),
      getPropertyIdForPmsHotel(partnerId, request.pmsHotelId),
    ]);
    const hostUserId = existingHostId ?? (await allocateId('host'));
    const propertyId = existingPropertyId ?? (await allocateId('property'));
    let seats = new Map<ProductId, SeatStatus>();
    if (existingPropertyId !== undefined) {
      // Strongly consistent: a property created a moment ago by another host must be seen here.
      // One whose sponsorship ended is found too: provisioning sponsors it again.
      const property = await getPropertyOfPartner(partnerId, existingPropertyId, {
        consistent: true,
        includeEnded: true,
      });
      if (property && property.hostUserId !== hostUserId) {
        // The reads can straddle another provisioning's commit: the e-mail claim read before it
        // (no account yet), the property after it. Read again (the nonce first) before refusing.
        if (existingHostId === undefined && attempt < MAX_ATTEMPTS - 1) continue;
        throw new PropertyHeldByAnotherHostError();
      }
      seats = await listSeatsOfProperty(partnerId, existingPropertyId);
    }
    const alreadyActive = [...seats].filter(([, status]) => status === 'active').map(([product]) => product);
    const newProducts = [...new Set(request.productIds)].filter(
      (product) => !alreadyActive.includes(product),
    );
    const activatedProductIds = [...alreadyActive, ...newProducts];
    // An ended sponsorship is sponsored again: its other properties come back with it.
    const sponsorship =
      existingHostId === undefined ? undefined : await getSponsorship(partnerId, existingHostId);

    const sponsored = { partnerId, propertyId };
    const transactItems = [
      ...(existingHostId === undefined
        ? hostCreationItems(
            {
              id: hostUserId,
              email: request.contactEmail.trim(),
              name: request.contactName,
              createdAt: nowIso,
            },
            sponsored,
          )
        : hostSponsoredItems(request.contactEmail, hostUserId, sponsored)),
      sponsorshipSeatsItem(
        partnerId,
        hostUserId,
        propertyId,
        newProducts.length,
        nowIso,
        sponsorship?.endedAt,
      ),
      // An existing property must still be this host's when the transaction commits.
      ...(existingPropertyId !== undefined
        ? [propertyOwnerCheckItem(partnerId, existingPropertyId, hostUserId)]
        : propertyCreationItems({
            id: propertyId,
            partnerId,
            hostUserId,
            name: request.propertyName,
            units: 1,
            pmsHotelId: request.pmsHotelId,
            createdAt: nowIso,
          })),
      ...newProducts.map((productId) =>
        seatActivationItem(
          { partnerId, propertyId, hostUserId, productId, activatedAt: nowIso },
          seats.get(productId),
        ),
      ),
      ...alreadyActive
        .filter((productId) => request.productIds.includes(productId))
        .map((productId) => seatChosenAgainItem({ partnerId, propertyId, productId }, nowIso)),
    ];
    const nonceIndex = transactItems.length;
    const partnerCheckIndex = nonceIndex + 1;
    if (nonce) {
      // A link provisions only while its partner is not suspended (the pages' cached partner may be older).
      transactItems.push(
        nonceConsumptionItem(
          {
            partnerId,
            nonce: nonce.value,
            hostUserId,
            propertyId,
            activatedProductIds,
            consumedAt: nowIso,
            ...(nonce.sessionId ? { sessionId: nonce.sessionId } : {}),
          },
          nonce.tokenExpiresAtMs,
        ),
        partnerNotSuspendedItem(partnerId),
      );
    }
    if (request.audit) {
      transactItems.push(
        auditEventItem({
          at: nowIso,
          actor: request.audit.actor,
          action: 'host.provisioned',
          partnerId,
          hostId: hostUserId,
          propertyId,
          ...(nonce ? { linkNonce: nonce.value } : {}),
          ...(request.audit.requestId ? { requestId: request.audit.requestId } : {}),
          details: { products: newProducts },
        }),
      );
    }
    const resumed =
      sponsorship?.endedAt === undefined
        ? { now: [], later: [] }
        : resumedPropertyItems(sponsorship, propertyId, MAX_TRANSACTION_ITEMS - transactItems.length);
    transactItems.push(...resumed.now);
    try {
      await dynamoDb().send(new TransactWriteCommand({ TransactItems: transactItems }));
      if (resumed.later.length > 0) await resumeLater(partnerId, hostUserId, nowIso, resumed.later);
      return {
        hostUserId,
        propertyId,
        activatedProductIds,
        alreadyProvisioned: false,
        ...(nonce?.sessionId ? { sessionId: nonce.sessionId } : {}),
      };
    } catch (error) {
      const codes = transactionCancellationCodes(error);
      if (isRetryableCancellation(error)) {
        // Another transaction held one of these items: nothing was written; try again shortly.
        await pauseBeforeRetry(attempt + 1, 20);
        continue;
      }
      if (!codes?.includes('ConditionalCheckFailed')) throw error;
      if (nonce && codes[nonceIndex] === 'ConditionalCheckFailed') {
        const consumed = await getConsumedNonce(partnerId, nonce.value);
        if (consumed) return earlierResult(consumed);
      }
      if (nonce && codes[partnerCheckIndex] === 'ConditionalCheckFailed') throw new PartnerSuspendedError();
      // Lost a race on the e-mail, the property or a seat: the next attempt links to the winner's items.
    }
  }
  throw new ProvisioningContentionError();
}
