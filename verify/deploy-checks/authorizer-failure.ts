import { COUNT_CHECK, countedByFilters, FORCE_CHECK, forceAuthorizerFailure } from '../authorizer-failure';
import type { Check, Verdict } from '../checks';
import { skip } from '../checks';
import type { StageRun } from './stage-run';
import { known } from './stage-run';

/** An authorizer failure, forced for real (authorizer-failure.ts), unless this run may not fire its alarm. */
async function forceTheAuthorizerFailure(run: StageRun): Promise<Verdict> {
  const probe = run.context.authorizerFailure;
  if ('skip' in probe) return skip(probe.skip);
  const { verdict, forced } = await forceAuthorizerFailure(
    probe,
    run.context.target.apiBaseUrl,
    run.context.timeoutMs,
  );
  run.forced = forced;
  return verdict;
}

/** The forced failure's access-log line, counted by the stage's answered-5xx and authorizer-failures filters. */
async function countTheAuthorizerFailure(run: StageRun): Promise<Verdict> {
  const probe = run.context.authorizerFailure;
  if ('skip' in probe) return skip(probe.skip);
  return countedByFilters(probe, known(run.forced, 'forced failure'));
}

export const forceFailureCheck: Check<StageRun> = { name: FORCE_CHECK, run: forceTheAuthorizerFailure };

export const countFailureCheck: Check<StageRun> = {
  name: COUNT_CHECK,
  needs: forceFailureCheck.name,
  run: countTheAuthorizerFailure,
};
