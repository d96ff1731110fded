import type { Check } from '../checks';
import { auditTrailThroughIndex } from '../operator-checks';
import { approveCheck } from './approve-test-partner';
import type { StageRun } from './stage-run';

/** The operator policy's index query (`audit list` without a partner reads the trail's index). */
export const OPERATOR_INDEX_CHECK = 'index query (OperatorPolicy): npm run admin -- audit list --since';

export const operatorIndexCheck: Check<StageRun> = {
  name: OPERATOR_INDEX_CHECK,
  needs: approveCheck.name,
  run: ({ context, startedAt, slug }) =>
    auditTrailThroughIndex(context, context.target.stage, startedAt, slug),
};
