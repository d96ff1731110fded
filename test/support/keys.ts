import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { generateApiKey } from '../../core/domain/api-key';
import type { Scope } from '../../core/domain/scopes';
import { apiKeyCreationItem } from '../../lambdas/data/api-keys';
import { dynamoDb } from '../../lambdas/data/db';
import { getPartner, keysIssuedItem } from '../../lambdas/data/partners';

/** Active keys for a partner straight into the table (for load: enough keys that no key hits its limit). */
export async function extraKeysFor(partnerId: number, count: number, scopes: Scope[]): Promise<string[]> {
  const keys = Array.from({ length: count }, () => generateApiKey());
  const createdAt = new Date().toISOString();
  for (let start = 0; start < keys.length; start += 24) {
    const batch = keys.slice(start, start + 24);
    const partner = await getPartner(partnerId, { consistent: true });
    if (!partner) throw new Error(`No partner ${partnerId}`);
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          ...batch.map((key) =>
            apiKeyCreationItem({
              prefix: key.prefix,
              partnerId,
              digest: key.digest,
              scopes,
              createdAt,
              sequence: partner.revision + 1,
              state: 'active',
            }),
          ),
          keysIssuedItem(
            partner,
            batch.map((key) => key.prefix),
          ),
        ],
      }),
    );
  }
  return keys.map((key) => key.key);
}
