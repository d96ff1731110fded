import { GRANTABLE_SCOPES } from '../../core/domain/scopes';
import { getPartnerBySlug } from '../../lambdas/data/partners';
import { approvePartner } from '../../operations/partners';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import type { StageRun } from './stage-run';

/** An approved test partner with its first key, as `partners approve` makes one (no mail). */
async function approveTestPartner(run: StageRun): Promise<Verdict> {
  const approval = await approvePartner(
    run.context.target,
    {
      name: `Deploy verification ${run.stamp} (test data)`,
      slug: run.slug,
      email: `deploy-verification@${run.slug}.example.com`,
      products: ['assistant', 'upsells'],
      scopes: GRANTABLE_SCOPES,
    },
    Date.now(),
  ).then(
    (value) => value,
    (error: unknown) => error as Error,
  );
  if (approval instanceof Error) {
    // An approval that committed its partner and key before failing (the sandbox's sample hosts,
    // say) leaves them for the clean-up to revoke and suspend.
    const committed = await getPartnerBySlug(run.slug, { consistent: true }).catch(() => undefined);
    if (committed) {
      run.partnerId = committed.id;
      run.created.partner = run.slug;
      const [keyPrefix] = committed.keyPrefixes;
      if (keyPrefix) run.created.keyPrefix = keyPrefix;
    }
    return fail(
      `${approval.name}: ${approval.message}`,
      'your own credentials: dynamodb:TransactWriteItems on the table, secretsmanager:GetSecretValue on the sealing secret, apigateway:POST /apikeys and /usageplans/*/keys',
    );
  }
  run.partnerId = approval.result.partner_id;
  run.revealUrl = approval.result.reveal_url;
  run.created.partner = run.slug;
  run.created.keyPrefix = approval.result.key_prefix;
  return pass(`${run.slug} (partner ${run.partnerId}), key ${approval.result.key_prefix}`);
}

export const approveCheck: Check<StageRun> = { name: 'approve a test partner', run: approveTestPartner };
