import type { Check } from '../checks';
import { catalogThroughIndex } from './marketplace-through-index';
import { provisionCheck } from './provision-the-host';
import type { StageRun } from './stage-run';

/** The onboarding wizard's first page, after the provisioning: the catalog read through the index again. */
export const onboardingIndexCheck: Check<StageRun> = {
  name: 'index query (onboardingPage): GET the onboarding wizard',
  needs: provisionCheck.name,
  run: (run) => catalogThroughIndex(run, 'onboardingPage'),
};
