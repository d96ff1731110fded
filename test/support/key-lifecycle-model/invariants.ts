import { expect } from 'vitest';
import { listKeys } from '../../../operations/keys';
import {
  AUTHORIZER_CACHE_MS,
  agreementScopes,
  inForce,
  type Model,
  noteForce,
  type Real,
  standing,
  verdict,
} from './model';

/*
 * The invariants of the key lifecycle model, checked against the real system after every step.
 */

// --- Invariants, after every step ------------------------------------------------------------

/** What the runs covered, printed at the end. */
export const tally = { runs: 0, steps: 0, keys: 0, revealed: 0, provisioned: 0 };

export async function checkInvariants(model: Model, real: Real): Promise<void> {
  tally.steps += 1;
  noteForce(model);
  for (const key of model.keys) {
    if (!key.plaintext) continue;
    const expectAllowed = inForce(key, model.now) && !key.partner.suspended;
    const settled = model.now - Math.max(key.changedAt, key.partner.changedAt) >= AUTHORIZER_CACHE_MS;
    // Through the cache: once the last change is 25 s old, the cache must agree with the model.
    const cached = await verdict(key.plaintext, false);
    if (settled) expect(cached.allowed, `${key.prefix} through the authorizer cache`).toBe(expectAllowed);
    const exact = await verdict(key.plaintext, true);
    expect(exact.allowed, `${key.prefix} (${standing(key, model.now)}) authenticates`).toBe(expectAllowed);
    if (expectAllowed) {
      expect(exact.scopes, `${key.prefix} scopes`).toEqual(
        key.scopes.filter((scope) => agreementScopes(key.partner).includes(scope)).sort(),
      );
    } else {
      const problem = {
        revoked: 'revoked-api-key',
        expired: 'expired-api-key',
        active: 'partner-suspended',
        retiring: 'partner-suspended',
      }[standing(key, model.now) as 'revoked' | 'expired' | 'active' | 'retiring'];
      expect(exact.problem, `${key.prefix} refusal`).toBe(problem);
    }
    if (key.leftForce) expect(exact.allowed, `${key.prefix} left force and stays out`).toBe(false);
  }
  for (const partner of model.partners) {
    const listed = await listKeys(partner.slug, model.now);
    const keys = model.keys.filter((key) => key.partner === partner);
    expect(
      listed.keys.map((key) => [key.key_prefix, key.state]),
      `${partner.slug}: keys list`,
    ).toEqual(keys.map((key) => [key.prefix, standing(key, model.now)]));
    // A rotation never leaves a partner without a working key, unless an operator revoked one.
    if (keys.some((key) => key.wasInForce) && !partner.revokedInForce)
      expect(
        keys.some((key) => inForce(key, model.now)),
        `${partner.slug} keeps a working key`,
      ).toBe(true);
  }
  for (const key of model.keys)
    if (key.state === 'pending' || inForce(key, model.now))
      expect(real.usagePlan.has(key.prefix), `${key.prefix} keeps its usage-plan key`).toBe(true);
}
