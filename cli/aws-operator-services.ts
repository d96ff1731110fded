import { randomInt } from 'node:crypto';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import type { ResultField } from '@aws-sdk/client-cloudwatch-logs';
import {
  CloudWatchLogsClient,
  GetQueryResultsCommand,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { GetAccountCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { isKeyPrefix } from '../core/domain/api-key';
import { sendEmailCommand } from '../lambdas/common/mail';
import { senderAddress } from '../lib/stage-config';
import type { AccessLogCount, AccessLogReader } from '../operations/access-log-reader';
import type { Mailer } from '../operations/mailer';
import { OperatorError } from '../operations/operator-error';
import type { UsagePlanKeys } from '../operations/target';

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
          `The sender ${sender} is not a verified SES identity in ${region}: verify it or its domain in SES (docs/deploying.md), or deploy with another -c mailFrom.`,
        );
      const { ProductionAccessEnabled } = await client.send(new GetAccountCommand({}));
      if (ProductionAccessEnabled === false && !(await verifiedForSending(client, to)))
        problems.push(
          `SES in ${region} is in its sandbox, where mail only goes to verified addresses, and ${to} is not one: request production access for SES, or verify ${to}.`,
        );
      return problems;
    },
    async send(mail) {
      const { MessageId } = await client.send(sendEmailCommand(from, mail));
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
function usageKeyValue(): string {
  return Array.from({ length: USAGE_KEY_LENGTH }, () =>
    ALPHANUMERIC.charAt(randomInt(ALPHANUMERIC.length)),
  ).join('');
}

/** Name of the API Gateway key of a partner key, so that it can be found again by prefix. */
function usageKeyName(keyPrefix: string): string {
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

/**
 * Rows a Logs Insights query returns when it sets no `limit` (and the most one GetQueryResults
 * call returns): one row per (day, key, status), so 90 days of a partner stay far below it.
 */
export const INSIGHTS_ROW_LIMIT = 10_000;

/**
 * The Logs Insights query of a partner's traffic in the access log (`ACCESS_LOG_FORMAT`):
 * `partnerId` and `keyPrefix` are the authorizer's context, "-" where API Gateway had none (no
 * key, a refused key), so only requests the authorizer let through match. Days are UTC.
 */
export function trafficQuery(partnerId: number): string {
  // A number from the table, never operator text: nothing can break out of the quotes.
  if (!Number.isSafeInteger(partnerId) || partnerId < 1) throw new Error(`Not a partner id: ${partnerId}`);
  return [
    `filter partnerId = "${partnerId}" and ispresent(keyPrefix) and keyPrefix != "-" and keyPrefix != ""`,
    'stats count(*) as requests by datefloor(@timestamp, 1d) as day, keyPrefix, status',
  ].join(' | ');
}

const FAILED_QUERY_STATUSES = new Set(['Cancelled', 'Failed', 'Timeout', 'Unknown']);

/** One result row of {@link trafficQuery} as a count; undefined for a row that is not one. */
function countOfRow(row: readonly ResultField[]): AccessLogCount | undefined {
  const fields = new Map(row.map((cell) => [cell.field, cell.value ?? '']));
  // Logs Insights prints timestamps as `2026-05-04 00:00:00.000` (UTC).
  const date = /^(\d{4}-\d{2}-\d{2})[ T]/.exec(fields.get('day') ?? '')?.[1];
  const keyPrefix = fields.get('keyPrefix') ?? '';
  const status = fields.get('status') ?? '';
  const requests = Number(fields.get('requests'));
  if (!date || !isKeyPrefix(keyPrefix) || !/^[1-5]\d\d$/.test(status) || !Number.isSafeInteger(requests))
    return undefined;
  return { date, keyPrefix, status: Number(status), requests };
}

export interface InsightsPolling {
  /** Between two GetQueryResults calls. @default 1000 */
  readonly intervalMs?: number;
  /** How long to wait for the query to complete before stopping it. @default 60000 */
  readonly maxWaitMs?: number;
}

/**
 * A deployed stage's access log group, counted with CloudWatch Logs Insights: StartQuery over the
 * window (epoch seconds, both ends included), GetQueryResults until the query is Complete, and
 * StopQuery if it is not within `maxWaitMs` (a running query keeps scanning, and scanning is billed).
 */
export function cloudWatchAccessLog(
  logGroupName: string,
  client: CloudWatchLogsClient = new CloudWatchLogsClient({}),
  { intervalMs = 1_000, maxWaitMs = 60_000 }: InsightsPolling = {},
): AccessLogReader {
  return {
    description: `CloudWatch Logs Insights over ${logGroupName}`,
    async counts(partnerId, window) {
      const { queryId } = await client.send(
        new StartQueryCommand({
          logGroupName,
          startTime: Math.floor(window.startMs / 1000),
          endTime: Math.floor(window.endMs / 1000),
          queryString: trafficQuery(partnerId),
          limit: INSIGHTS_ROW_LIMIT,
        }),
      );
      if (!queryId) throw new OperatorError(`CloudWatch Logs returned no query id for ${logGroupName}.`);
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        const { status, results, statistics } = await client.send(new GetQueryResultsCommand({ queryId }));
        if (status === 'Complete') {
          const rows = results ?? [];
          if (rows.length >= INSIGHTS_ROW_LIMIT)
            throw new OperatorError(
              `The Logs Insights query returned ${rows.length} rows, its limit: the counts would be incomplete. Ask for fewer --days.`,
            );
          const counts = rows.map(countOfRow).filter((count) => count !== undefined);
          return {
            counts,
            ...(statistics?.bytesScanned === undefined ? {} : { bytesScanned: statistics.bytesScanned }),
          };
        }
        if (status && FAILED_QUERY_STATUSES.has(status))
          throw new OperatorError(
            `The Logs Insights query ${queryId} over ${logGroupName} ended ${status}. Run the command again; if it keeps failing, ask for fewer --days.`,
          );
        if (Date.now() >= deadline) {
          // Best effort: the query may have completed meanwhile, which StopQuery refuses.
          await client.send(new StopQueryCommand({ queryId })).catch(() => undefined);
          throw new OperatorError(
            `The Logs Insights query ${queryId} over ${logGroupName} did not complete within ${Number((maxWaitMs / 1000).toFixed(2))} s (status ${status ?? 'unknown'}), so it was stopped. Run the command again, or ask for fewer --days.`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
    },
  };
}
