import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CATALOG } from '../../core/domain/catalog';
import { forgetCachedLookups, productCatalog } from '../../lambdas/pages/activation-lookups';

const dynamo = mockClient(DynamoDBDocumentClient);
const spa = { id: 'spa', name: 'Spa booking', description: 'Lets guests book the spa.' };

beforeEach(() => {
  forgetCachedLookups();
  dynamo.reset();
});

describe('the pages’ product catalog', () => {
  it('is read once a minute while it names every product asked for', async () => {
    // Prepare
    dynamo.on(QueryCommand).resolves({ Items: DEFAULT_CATALOG.map((product) => ({ ...product })) });

    // Act
    await productCatalog();
    const again = await productCatalog(['assistant', 'upsells']);

    // Assess
    expect(again.map((product) => product.id)).toContain('upsells');
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
  });

  it('is read again at once when a link names a product added since it was cached', async () => {
    // Prepare
    dynamo.on(QueryCommand).resolvesOnce({ Items: DEFAULT_CATALOG.map((product) => ({ ...product })) });
    await productCatalog();
    dynamo.on(QueryCommand).resolves({ Items: [...DEFAULT_CATALOG, spa].map((product) => ({ ...product })) });

    // Act
    const catalog = await productCatalog(['assistant', 'spa']);

    // Assess
    expect(catalog.map((product) => product.id)).toContain('spa');
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(2);
  });
});
