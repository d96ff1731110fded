import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { PropertyHeldByAnotherHostError, provisionSponsoredHost } from '../../lambdas/data/provisioning';

const dynamo = mockClient(DynamoDBDocumentClient);
const PARTNER = 7;
const NONCE = 'n'.repeat(22);
const request = {
  partnerId: PARTNER,
  contactEmail: 'host@example.com',
  contactName: 'Casa',
  pmsHotelId: 'PMS-1',
  propertyName: 'Casa',
  productIds: ['assistant' as const],
  nonce: { value: NONCE, tokenExpiresAtMs: Date.now() + 3_600_000 },
  nowMs: Date.now(),
};
const nonceKey = { PK: `NONCE#${PARTNER}#${NONCE}`, SK: 'NONCE' };
const property = { id: 9, partnerId: PARTNER, hostUserId: 5, name: 'Casa', units: 1, pmsHotelId: 'PMS-1' };

beforeEach(() => {
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  dynamo
    .on(GetCommand, { Key: { PK: `PARTNER#${PARTNER}`, SK: 'PMS#PMS-1' } })
    .resolves({ Item: { propertyId: 9 } });
  dynamo
    .on(GetCommand, { Key: { PK: `PARTNER#${PARTNER}`, SK: 'PROPERTY#000000000009' } })
    .resolves({ Item: property });
  dynamo.on(UpdateCommand).resolves({ Attributes: { lastId: 42 } });
  dynamo.on(QueryCommand).resolves({ Items: [] });
});

describe('provisioning under a race', () => {
  it('reads again when its reads straddled the winning provisioning of the same link, and returns its result', async () => {
    // First look: the link not yet used and no account for the e-mail, but the property already
    // there (the other request committed in between). Second look: the link was used by it.
    dynamo
      .on(GetCommand, { Key: nonceKey })
      .resolvesOnce({})
      .resolves({
        Item: {
          partnerId: PARTNER,
          nonce: NONCE,
          hostUserId: 5,
          propertyId: 9,
          activatedProductIds: ['assistant'],
        },
      });

    const result = await provisionSponsoredHost(request);

    expect(result).toMatchObject({ hostUserId: 5, propertyId: 9, alreadyProvisioned: true });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('still refuses a property that another host account holds', async () => {
    dynamo
      .on(GetCommand, { Key: { PK: 'HOSTEMAIL#host@example.com', SK: 'HOSTEMAIL' } })
      .resolves({ Item: { hostId: 3 } });

    await expect(provisionSponsoredHost(request)).rejects.toBeInstanceOf(PropertyHeldByAnotherHostError);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
