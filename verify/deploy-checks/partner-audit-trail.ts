import type { Check } from '../checks';
import { partnerAuditTrail } from '../operator-checks';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';

/** The partner's audit trail, as `audit list --partner` reads it (operator-checks.ts). */
export const auditTrailCheck: Check<StageRun> = {
  name: 'npm run admin -- audit list --partner',
  needs: revealCheck.name,
  run: ({ context, slug }) => partnerAuditTrail(context, context.target.stage, slug),
};
