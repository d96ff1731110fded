import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { ServiceEvent } from '../../core/contract/service-events';
import { propertyPartition } from '../../core/partitions';
import { transactionCancellationCodes } from '../common/aws-errors';
import type { AuditEvent } from './audit';
import { auditEventItem } from './audit';
import { dynamoDb, type TransactItem, tableName } from './db';
import { outboxEventItem, outboxSortKey } from './outbox';
import { propertySponsoredCheckItem } from './properties';

/**
 * What the onboarding wizard saved for a property, in one item (`PROPERTY#<id>` / `KNOWLEDGE_BASE`):
 * each step's answers under an attribute of the step's own, as stored. This module knows no step:
 * a step names its attribute and reads its answers back itself (`answers` of its entry in
 * lambdas/pages/wizard-steps.tsx), so a new step needs no change here, and the erasure, which
 * deletes the item, deletes every step's answers with it.
 */
export interface KnowledgeBase {
  /** Each step's answers, by the attribute the step names, as stored: only the step knows their shape. */
  readonly answers: Readonly<Record<string, unknown>>;
  /** Set when the wizard is first submitted: from then on the assistant answers guests. */
  readonly assistantLiveAt?: string;
  readonly updatedAt?: string;
  /** How many times the host submitted the wizard: the version of its last `KnowledgeBaseSubmitted`. */
  readonly submissionVersion?: number;
  /**
   * Counts the saves of the host's answers: every save adds one, in its own write, so it orders the
   * saves as they committed (clocks do not).
   */
  readonly revision?: number;
  /** The revision the last submission sent: answers saved after it (a greater `revision`) were not sent yet. */
  readonly submittedRevision?: number;
  /** When the host last submitted it. */
  readonly submittedAt?: string;
  /** The last submission's event in the host's outbox partition (`outboxSortKey`): was it sent yet? */
  readonly submittedEvent?: string;
}

/** The item's own attributes: no step may name one for its answers. */
export const KNOWLEDGE_BASE_ATTRIBUTES = [
  'PK',
  'SK',
  'assistantLiveAt',
  'updatedAt',
  'submissionVersion',
  'submittedAt',
  'submittedEvent',
  'revision',
  'submittedRevision',
] as const;
const OWN_ATTRIBUTES: ReadonlySet<string> = new Set(KNOWLEDGE_BASE_ATTRIBUTES);

const knowledgeBaseKey = (propertyId: number) => ({
  PK: propertyPartition(propertyId),
  SK: 'KNOWLEDGE_BASE',
});

/**
 * The item as stored, every number as a JavaScript number: the document client's default refuses a
 * number beyond ±2^53 with a fraction (it cannot be a BigInt) and would fail the whole page over one
 * value no step wrote. A step's reader then leaves out what is not the shape it stores.
 */
export async function getKnowledgeBase(propertyId: number): Promise<KnowledgeBase> {
  const { Item: stored } = await dynamoDb().send(
    new GetItemCommand({
      TableName: tableName(),
      Key: marshall(knowledgeBaseKey(propertyId)),
      ConsistentRead: true,
    }),
  );
  const Item = stored ? unmarshall(stored, { wrapNumbers: Number }) : undefined;
  const {
    assistantLiveAt,
    updatedAt,
    submissionVersion,
    submittedAt,
    submittedEvent,
    revision,
    submittedRevision,
  } = Item ?? {};
  return {
    answers: Object.fromEntries(Object.entries(Item ?? {}).filter(([name]) => !OWN_ATTRIBUTES.has(name))),
    ...(typeof assistantLiveAt === 'string' ? { assistantLiveAt } : {}),
    ...(typeof updatedAt === 'string' ? { updatedAt } : {}),
    ...(typeof submissionVersion === 'number' ? { submissionVersion } : {}),
    ...(typeof submittedAt === 'string' ? { submittedAt } : {}),
    ...(typeof submittedEvent === 'string' ? { submittedEvent } : {}),
    ...(typeof revision === 'number' ? { revision } : {}),
    ...(typeof submittedRevision === 'number' ? { submittedRevision } : {}),
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
 * Saves one wizard step's answers under its attribute (each step owns its attribute, so steps never
 * overwrite each other), and the property's new name when the step renames it, together, while the
 * partner still sponsors the property: an ended sponsorship or an erasure in between writes nothing
 * (`PropertyNotSponsoredError`), so no answer or name outlives them.
 */
export async function saveAnswers(
  property: { readonly partnerId: number; readonly propertyId: number },
  answers: { readonly attribute: string; readonly value: unknown },
  nowIso: string,
  propertyName?: string,
): Promise<void> {
  if (OWN_ATTRIBUTES.has(answers.attribute))
    throw new Error(`A step's answers cannot be stored as "${answers.attribute}": the item's own attribute`);
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          propertySponsoredCheckItem(property.partnerId, property.propertyId, propertyName),
          {
            Update: {
              TableName: tableName(),
              Key: knowledgeBaseKey(property.propertyId),
              UpdateExpression: 'SET #answers = :answers, #updated = :updated ADD revision :one',
              ExpressionAttributeNames: { '#answers': answers.attribute, '#updated': 'updatedAt' },
              ExpressionAttributeValues: { ':answers': answers.value, ':updated': nowIso, ':one': 1 },
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

/** The knowledge base changed since it was read (another tab saved or submitted): nothing was written. */
export class KnowledgeBaseChangedError extends Error {
  override readonly name = 'KnowledgeBaseChangedError';
}

/** What a submission of the wizard records: the event it sends, and the audit event of a first one. */
export interface Submission {
  /** `KnowledgeBaseSubmitted` of this version, from the knowledge base as read. */
  event(version: number, first: boolean): ServiceEvent<'KnowledgeBaseSubmitted'>;
  /** Recorded with the first submission only (`onboarding.completed`). */
  readonly firstAudit: AuditEvent;
}

/**
 * The host submits the wizard: the property goes live on the first submission (`assistantLiveAt`),
 * and every submission, the first and each later "Save my changes", sends the whole knowledge base
 * to the platform (`KnowledgeBaseSubmitted`, the next version) from the outbox, in one transaction
 * conditioned on the knowledge base being as `read` (so the event carries what is stored) and on the
 * partner still sponsoring the property. Says whether this was the first submission.
 */
export async function submitKnowledgeBase(
  property: { readonly partnerId: number; readonly propertyId: number },
  read: KnowledgeBase,
  submission: Submission,
  nowIso: string,
): Promise<{ first: boolean; version: number }> {
  const { propertyId } = property;
  const first = read.assistantLiveAt === undefined;
  const version = (read.submissionVersion ?? 0) + 1;
  const event = submission.event(version, first);
  const asRead = (name: string, placeholder: string, value: unknown) =>
    value === undefined ? `attribute_not_exists(${name})` : `${name} = ${placeholder}`;
  try {
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: knowledgeBaseKey(propertyId),
              UpdateExpression:
                'SET #live = if_not_exists(#live, :now), submissionVersion = :version, submittedAt = :now, submittedEvent = :event, submittedRevision = :submittedRevision',
              ConditionExpression: [
                asRead('submissionVersion', ':read', read.submissionVersion),
                asRead('revision', ':revision', read.revision),
                first ? 'attribute_not_exists(#live)' : 'attribute_exists(#live)',
              ].join(' AND '),
              ExpressionAttributeNames: { '#live': 'assistantLiveAt' },
              ExpressionAttributeValues: {
                ':now': nowIso,
                ':version': version,
                ':event': outboxSortKey(event),
                ...(read.submissionVersion === undefined ? {} : { ':read': read.submissionVersion }),
                ':submittedRevision': read.revision ?? 0,
                ...(read.revision === undefined ? {} : { ':revision': read.revision }),
              },
            },
          },
          propertySponsoredCheckItem(property.partnerId, propertyId),
          outboxEventItem(event),
          ...(first ? [auditEventItem(submission.firstAudit)] : []),
        ],
      }),
    );
    return { first, version };
  } catch (error) {
    const codes = transactionCancellationCodes(error);
    if (codes?.[1] === 'ConditionalCheckFailed') throw new PropertyNotSponsoredError();
    if (codes?.[0] === 'ConditionalCheckFailed') throw new KnowledgeBaseChangedError();
    throw error;
  }
}
