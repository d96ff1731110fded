import type { ServiceConfig } from './config';
import { serviceConfig } from './config';

/** What an SDK client is made with: nothing in AWS (the SDK's defaults), the local endpoint locally. */
interface ClientOptions {
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
}

/**
 * An AWS SDK client, made on first use and kept for the instance (made again only if the settings
 * change); locally it talks to the endpoint the settings name (the local AWS endpoint).
 */
export function clientFor<Client>(
  endpointOf: (config: ServiceConfig) => string | undefined,
  make: (options: ClientOptions) => Client,
): () => Client {
  let made: { readonly config: ServiceConfig; readonly client: Client } | undefined;
  return () => {
    const config = serviceConfig();
    if (made?.config !== config) {
      const endpoint = endpointOf(config);
      made = {
        config,
        client: make(endpoint ? { endpoint, region: 'local', credentials: config.local?.credentials } : {}),
      };
    }
    return made.client;
  };
}
