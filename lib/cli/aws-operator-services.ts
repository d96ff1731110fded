import { randomInt } from 'node:crypto';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  SESv2Client,
  SendEmailCommand,
} from '@aws-sdk/client-sesv2';
import type { Mailer } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { UsagePlanKeys } from '../operations/target';
import { senderAddress } from '../stage-config';

/**
 * Whether SES may send from (or, in its sandbox, to) an address: the address itself or its domain
 * is a verified identity.
 */
async function verifiedForSending(client: SESv2Client, address: string): Promise<boolean> {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  for (const identity of [address, domain]) {
    try {
      const { VerifiedForSendingStatus } = await client.send(
        new GetEmailIdentityCommand({ EmailIdentity: identity }),
      );
      if (VerifiedForSendingStatus === true) return true;
    } catch (error) {
      if ((error as Error).name !== 'NotFoundException') throw error;
    }
  }
  return false;
}

/** Sends operator mail through SES (v2) from the stage's sender (a verified identity). */
export function sesMailer(from: string, client: SESv2Client = new SESv2Client({})): Mailer {
  return {
    async check(to) {
      const region = (await client.config.region().catch(() => undefined)) ?? 'this region';
      const sender = senderAddress(from);
      const problems: string[] = [];
      if (!(await verifiedForSending(client, sender)))
        problems.push(
          `The sender ${sender} is not a verified SES identity in ${region}: verify it or its domain in SES (README "Deploying to AWS"), or deploy with another -c mailFrom.`,
        );
      const { ProductionAccessEnabled } = await client.send(new GetAccountCommand({}));
      if (ProductionAccessEnabled === false && !(await verifiedForSending(client, to)))
        problems.push(
          `SES in ${region} is in its sandbox, where mail only goes to verified addresses, and ${to} is not one: request production access for SES, or verify ${to}.`,
        );
      return problems;
    },
    async send(mail) {
      const { MessageId } = await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [mail.to] },
          Content: {
            Simple: {
              Subject: { Data: mail.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: mail.text, Charset: 'UTF-8' } },
            },
          },
        }),
      );
      if (!MessageId)
        throw new OperatorError(`SES accepted the message to ${mail.to} but returned no message id.`);
      return { delivery: 'ses', messageId: MessageId };
    },
  };
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 40 characters of 62 symbols: about 238 bits. API Gateway wants at least 20 characters. */
const USAGE_KEY_LENGTH = 40;

/** A random API Gateway key value (only the usage plan sees it; the partner key authenticates). */
export function usageKeyValue(): string {
  return Array.from({ length: USAGE_KEY_LENGTH }, () =>
    ALPHANUMERIC.charAt(randomInt(ALPHANUMERIC.length)),
  ).join('');
}

/** Name of the API Gateway key of a partner key, so that it can be found again by prefix. */
export function usageKeyName(keyPrefix: string): string {
  return `partner-${keyPrefix}`;
}

/**
 * API Gateway keys in the stage's usage plan, one per partner key. The authorizer returns the
 * stored value as `usageIdentifierKey`; API Gateway then applies the plan's per-key throttle.
 */
export function apiGatewayUsagePlanKeys(
  usagePlanId: string,
  client: APIGatewayClient = new APIGatewayClient({}),
): UsagePlanKeys {
  return {
    async issue(keyPrefix, partnerSlug) {
      const value = usageKeyValue();
      const { id } = await client.send(
        new CreateApiKeyCommand({
          name: usageKeyName(keyPrefix),
          description: `Usage-plan key of partner "${partnerSlug}", partner key ${keyPrefix}`,
          enabled: true,
          value,
        }),
      );
      if (!id) throw new OperatorError(`API Gateway created no id for the key of ${keyPrefix}.`);
      try {
        await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: id, keyType: 'API_KEY' }));
      } catch (error) {
        // A key outside the plan would be refused by API Gateway anyway: do not leave it behind.
        await client.send(new DeleteApiKeyCommand({ apiKey: id })).catch(() => undefined);
        throw error;
      }
      return value;
    },

    async remove(keyPrefix) {
      const name = usageKeyName(keyPrefix);
      let position: string | undefined;
      do {
        const page = await client.send(
          new GetApiKeysCommand({ nameQuery: name, includeValues: false, position, limit: 500 }),
        );
        for (const key of page.items ?? []) {
          // Deleting an API key also removes it from every usage plan.
          if (key.name === name && key.id) await client.send(new DeleteApiKeyCommand({ apiKey: key.id }));
        }
        position = page.position;
      } while (position);
      // No key by that name (removed already, or issued before the stage had usage-plan keys): the
      // authorizer refuses the partner key anyway, so there is nothing more to do.
    },
  };
}
