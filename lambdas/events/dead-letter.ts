import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { DEAD_LETTER_ATTRIBUTES } from '../../core/event-delivery';
import { sqs } from '../common/sqs';

/** Longest reason kept with a dead-lettered event (an SQS attribute). */
const MAX_REASON_LENGTH = 1_000;

/**
 * Sends a record to the dead-letter queue with the reason, when and after how many deliveries.
 * A module of its own, imported by the consumer only when a record is dead-lettered: few
 * invocations do, so the SQS client is not in every cold start (docs/design/README.md#cold-start-is-billed).
 */
export async function sendToDeadLetterQueue(
  queueUrl: string,
  record: SQSRecord,
  reason: string,
): Promise<void> {
  const text = (value: string) => ({ DataType: 'String', StringValue: value });
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: record.body,
      MessageAttributes: {
        [DEAD_LETTER_ATTRIBUTES.reason]: text(reason.slice(0, MAX_REASON_LENGTH)),
        [DEAD_LETTER_ATTRIBUTES.failedAt]: text(new Date().toISOString()),
        [DEAD_LETTER_ATTRIBUTES.deliveries]: {
          DataType: 'Number',
          StringValue: record.attributes.ApproximateReceiveCount,
        },
      },
    }),
  );
}
