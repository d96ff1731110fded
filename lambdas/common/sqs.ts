import { SQSClient } from '@aws-sdk/client-sqs';
import { clientFor } from './aws-clients';

/** The SQS client of the instance; locally the local AWS endpoint, which emulates the queues. */
export const sqs = clientFor(
  (config) => config.local?.sqsEndpoint,
  (options) => new SQSClient(options),
);
