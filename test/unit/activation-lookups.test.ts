import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CATALOG } from '../../core/domain/catalog';
import { forgetCachedLookups, productCatalog } from '../../lambdas/pages/activation-lookups';

const dynamo = mockClient(DynamoDBDocumentClient);
/** A product an operator adds after the pages cached the catalog: an id no default product has. */
const added = { id: 'added-later', name: 'Added later', description: 'A product added with the CLI.' };

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
    dynamo
      .on(QueryCommand)
      .resolves({ Items: [...DEFAULT_CATALOG, added].map((product) => ({ ...product })) });

    // Act
    const catalog = await productCatalog(['assistant', added.id]);

    // Assess
    expect(DEFAULT_CATALOG.map((product) => product.id)).not.toContain(added.id);
    expect(catalog.map((product) => product.id)).toContain(added.id);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(2);
  });
});
