import { SQSClient } from '@aws-sdk/client-sqs';
import type { ServiceConfig } from './config';
import { serviceConfig } from './config';

let made: { readonly config: ServiceConfig; readonly client: SQSClient } | undefined;

/**
 * The SQS client, made on first use and kept for the instance (made again only if the settings
 * change); locally it talks to the local AWS endpoint, which emulates the queues.
 */
export function sqs(): SQSClient {
  const config = serviceConfig();
  if (made?.config !== config) {
    const endpoint = config.local?.sqsEndpoint;
    made = {
      config,
      client: new SQSClient(
        endpoint ? { endpoint, region: 'local', credentials: config.local?.credentials } : {},
      ),
    };
  }
  return made.client;
}
