import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyCreationItem } from '../../lambdas/data/api-keys';
import { documentClient } from '../../lambdas/data/db';
import { generateApiKey } from '../../lambdas/domain/api-key';
import type { Scope } from '../../lambdas/domain/scopes';

/** Keys for a partner straight into the table (for load: enough keys that no key hits its limit). */
export async function extraKeysFor(partnerId: number, count: number, scopes: Scope[]): Promise<string[]> {
  const keys = Array.from({ length: count }, () => generateApiKey());
  const createdAt = new Date().toISOString();
  for (let start = 0; start < keys.length; start += 25) {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: keys
          .slice(start, start + 25)
          .map((key) =>
            apiKeyCreationItem({ prefix: key.prefix, partnerId, digest: key.digest, scopes, createdAt }),
          ),
      }),
    );
  }
  return keys.map((key) => key.key);
}
