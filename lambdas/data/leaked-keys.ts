import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { digestApiKey, digestsMatch, isInForce, parseApiKey } from '../../core/domain/api-key';
import type { OutgoingMail } from '../../core/domain/partner-mail';
import { leakedKeyMail } from '../../core/domain/partner-mail';
import { transactionCancellationCodes } from '../common/aws-errors';
import type { ApiKeyRecord, KeyLeak } from './api-keys';
import { getApiKey, getApiKeys, keyRevokedItem } from './api-keys';
import { auditEventItem } from './audit';
import { dynamoDb } from './db';
import { getPartner } from './partners';

/**
 * A reported leak, judged and acted on (docs/design/api-keys.md#when-a-key-leaks): a token that is
 * a key of ours in force when reported is revoked now, with where it was found, in one transaction
 * with its audit event. Anything else (not our format, a wrong checksum, no such key, a key already
 * revoked, superseded, expired or never revealed) changes nothing and is a false positive, so a
 * report repeated is a false positive the second time.
 */
export type LeakOutcome =
  | { readonly label: 'false_positive' }
  | {
      readonly label: 'true_positive';
      readonly key: ApiKeyRecord;
      readonly revokedAt: string;
    };

/** How many times a revocation is tried again when the key changed under it (a rotation's reveal). */
const ATTEMPTS = 3;

export async function revokeLeakedKey(
  token: string,
  leak: KeyLeak,
  nowMs: number,
  audit: { readonly actor: string; readonly requestId?: string },
): Promise<LeakOutcome> {
  const parsed = parseApiKey(token);
  if (!parsed.ok) return { label: 'false_positive' };
  // One digest for every well-formed token, compared in constant time: a key's existence shows only
  // in what the (signed) report's answer says.
  const presented = digestApiKey(parsed.key);
  const nowIso = new Date(nowMs).toISOString();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const key = await getApiKey(parsed.prefix, { consistent: true });
    if (!key || !digestsMatch(presented, key.digest) || !isInForce(key, nowMs))
      return { label: 'false_positive' };
    try {
      await dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [
            keyRevokedItem(key, nowIso, leak),
            auditEventItem({
              at: nowIso,
              actor: audit.actor,
              action: 'key.revoked',
              partnerId: key.partnerId,
              keyPrefix: key.prefix,
              ...(audit.requestId === undefined ? {} : { requestId: audit.requestId }),
              details: { reason: 'leaked', url: leak.url, source: leak.source },
            }),
          ],
        }),
      );
    } catch (error) {
      // Its state or end changed since it was read (a rotation's reveal): judge it again as it is now.
      if (transactionCancellationCodes(error)) continue;
      throw error;
    }
    return { label: 'true_positive', key, revokedAt: nowIso };
  }
  throw new Error(`Key ${parsed.prefix} kept changing while its leak was being acted on; report it again.`);
}

/**
 * The partner's notice of a key revoked as leaked (none if its partner's item is gone), with
 * whether another of its keys still works read now: after the whole report is judged, so a notice
 * never names as working a key the same report revoked.
 */
export async function leakNoticeOf(
  outcome: Extract<LeakOutcome, { label: 'true_positive' }>,
  leak: KeyLeak,
  nowMs: number,
): Promise<OutgoingMail | undefined> {
  const partner = await getPartner(outcome.key.partnerId, { consistent: true });
  if (!partner) return undefined;
  const others = await getApiKeys(partner.keyPrefixes.filter((prefix) => prefix !== outcome.key.prefix));
  return leakedKeyMail({
    to: partner.contactEmail,
    partnerName: partner.name,
    keyPrefix: outcome.key.prefix,
    ...leak,
    revokedAt: outcome.revokedAt,
    otherKeysWork: others.some((other) => isInForce(other, nowMs)),
  });
}
