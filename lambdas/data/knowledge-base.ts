import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { propertyPartition } from '../../core/partitions';
import { transactionCancellationCodes } from '../common/aws-errors';
import type { AuditEvent } from './audit';
import { auditEventItem } from './audit';
import { dynamoDb, type TransactItem, tableName } from './db';
import { propertySponsoredCheckItem } from './properties';

/** What the guest assistant knows about a property, filled in by the onboarding wizard. */
export interface KnowledgeBase {
  readonly checkInInstructions: string;
  readonly faqs: readonly { question: string; answer: string }[];
  readonly upsells: readonly UpsellOffer[];
  /** Set when the wizard is submitted: from then on the assistant answers guests. */
  readonly assistantLiveAt?: string;
  readonly updatedAt?: string;
}

export interface UpsellOffer {
  readonly title: string;
  readonly description: string;
  /** Guest price in minor units (cents) of `currency`. */
  readonly priceMinor: number;
  readonly currency: string;
}

const knowledgeBaseKey = (propertyId: number) => ({
  PK: propertyPartition(propertyId),
  SK: 'KNOWLEDGE_BASE',
});

const EMPTY_KNOWLEDGE_BASE: KnowledgeBase = { checkInInstructions: '', faqs: [], upsells: [] };

export async function getKnowledgeBase(propertyId: number): Promise<KnowledgeBase> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: knowledgeBaseKey(propertyId), ConsistentRead: true }),
  );
  if (!Item) return EMPTY_KNOWLEDGE_BASE;
  return {
    checkInInstructions: typeof Item.checkInInstructions === 'string' ? Item.checkInInstructions : '',
    faqs: Array.isArray(Item.faqs) ? (Item.faqs as KnowledgeBase['faqs']) : [],
    upsells: Array.isArray(Item.upsells) ? (Item.upsells as KnowledgeBase['upsells']) : [],
    assistantLiveAt: typeof Item.assistantLiveAt === 'string' ? Item.assistantLiveAt : undefined,
    updatedAt: typeof Item.updatedAt === 'string' ? Item.updatedAt : undefined,
  };
}

/** The property is no longer the partner's (its sponsorship ended, or its host was erased): nothing was saved. */
export class PropertyNotSponsoredError extends Error {
  override readonly name = 'PropertyNotSponsoredError';
}

/** Deletes the knowledge base: the host's wizard answers (an erasure). */
export function knowledgeBaseDeletionItem(propertyId: number): TransactItem {
  return { Delete: { TableName: tableName(), Key: knowledgeBaseKey(propertyId) } };
}

/**
 * Saves one wizard step's fields (each step owns its fields, so steps never overwrite each other),
 * and the property's new name when the step renames it, together, while the partner still sponsors
 * the property: an ended sponsorship or an erasure in between writes nothing
 * (`PropertyNotSponsoredError`), so no answer or name outlives them.
 */
export async function saveKnowledgeBase(
  property: { readonly partnerId: number; readonly propertyId: number },
  fields: Partial<Pick<KnowledgeBase, 'checkInInstructions' | 'faqs' | 'upsells' | 'assistantLiveAt'>>,
  nowIso: string,
  propertyName?: string,
): Promise<void> {
  const entries = Object.entries({ ...fields, updatedAt: nowIso }).filter(([, value]) => value !== undefined);
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          propertySponsoredCheckItem(property.partnerId, property.propertyId, propertyName),
          {
            Update: {
              TableName: tableName(),
              Key: knowledgeBaseKey(property.propertyId),
              UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
              ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
              ExpressionAttributeValues: Object.fromEntries(
                entries.map(([name, value]) => [`:${name}`, value]),
              ),
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (transactionCancellationCodes(error)?.[0] === 'ConditionalCheckFailed')
      throw new PropertyNotSponsoredError();
    throw error;
  }
}

/**
 * Makes the property live, once: sets `assistantLiveAt` only if it is not set, and records the
 * event (`onboarding.completed`) in the same transaction. False when it already was live (a
 * second click, another tab): nothing is written and no second event recorded.
 */
export async function markLive(
  property: { readonly partnerId: number; readonly propertyId: number },
  nowIso: string,
  event: AuditEvent,
): Promise<boolean> {
  const { propertyId } = property;
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: knowledgeBaseKey(propertyId),
              UpdateExpression: 'SET #live = :now, #updated = :now',
              ConditionExpression: 'attribute_not_exists(#live)',
              ExpressionAttributeNames: { '#live': 'assistantLiveAt', '#updated': 'updatedAt' },
              ExpressionAttributeValues: { ':now': nowIso },
            },
          },
          auditEventItem(event),
          propertySponsoredCheckItem(property.partnerId, propertyId),
        ],
      }),
    );
    return true;
  } catch (error) {
    const codes = transactionCancellationCodes(error);
    if (codes?.[2] === 'ConditionalCheckFailed') throw new PropertyNotSponsoredError();
    if (codes?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
