import { describe, expect, inject, it } from 'vitest';
import { checkPartnerApi, UNKNOWN_PROPERTY_ID } from '../../lambdas/canary/partner-api-checks';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/**
 * The canary's checks (lambdas/canary/partner-api-checks.ts, what the stage's Synthetics canary
 * runs) against the local server, which answers as the stack does: every route passes with a key
 * of its own, and nothing a step says names the key.
 */
describe('the canary’s checks against the local server', () => {
  const baseUrl = () => inject('apiBaseUrl');

  it('pass on every route for a partner with a property: 200, the contract’s body, the rate-limit headers', async () => {
    const partner = await approvedPartner();
    const { propertyId } = await sponsoredProperty(partner.id);

    const steps = await checkPartnerApi({ baseUrl: baseUrl(), key: partner.key });

    expect(steps.map((step) => step.name)).toEqual([
      'GET /usage',
      'GET /properties',
      'GET /properties/{propertyId}/pricing-signals',
    ]);
    for (const step of steps) {
      expect(step.ok, `${step.name}: ${step.detail}`).toBe(true);
      expect(step.detail).toMatch(/^200, body matches the schema, rate limit \d+ of 120 left$/);
    }
    // The property it asked about is the one GET /properties listed: checked on the partner's own.
    const named = await checkPartnerApi({ baseUrl: baseUrl(), key: partner.key, propertyId });
    expect(named.every((step) => step.ok)).toBe(true);
  });

  it('checks a partner without a property on the documented 404 of pricing signals', async () => {
    const partner = await approvedPartner();

    const steps = await checkPartnerApi({ baseUrl: baseUrl(), key: partner.key });

    expect(steps.map((step) => step.ok)).toEqual([true, true, true]);
    expect(steps[2]?.detail).toMatch(/^the partner has no property: 404 property-not-found as documented/);
  });

  it('fails a step, without the key in any detail, when the key is refused or the property is not the partner’s', async () => {
    const partner = await approvedPartner();
    const other = await approvedPartner();
    const { propertyId } = await sponsoredProperty(other.id);

    const foreign = await checkPartnerApi({ baseUrl: baseUrl(), key: partner.key, propertyId });
    expect(foreign.map((step) => step.ok)).toEqual([true, true, false]);
    expect(foreign[2]?.detail).toMatch(/^status 404, not 200 \(property-not-found\)/);

    const refused = await checkPartnerApi({ baseUrl: baseUrl(), key: `svc_${'A'.repeat(46)}` });
    expect(refused.map((step) => step.ok)).toEqual([false, false, false]);
    expect(refused[0]?.detail).toMatch(/^status 401, not 200/);
    for (const step of [...foreign, ...refused]) {
      expect(step.detail).not.toContain(partner.key);
      expect(step.detail).not.toContain('A'.repeat(46));
    }
    expect(UNKNOWN_PROPERTY_ID).toBeGreaterThan(propertyId);
  });
});
