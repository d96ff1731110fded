import type { Check } from '../checks';
import { partnerTraffic } from '../operator-checks';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';

/** The partner's traffic, as `traffic` reads it (operator-checks.ts). */
export const trafficCheck: Check<StageRun> = {
  name: 'npm run admin -- traffic',
  needs: revealCheck.name,
  run: ({ context, slug }) => partnerTraffic(context, context.target.stage, slug),
};
