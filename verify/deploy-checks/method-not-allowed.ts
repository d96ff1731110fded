import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { header, rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, problemName, withKey } from './stage-run';

/** What API Gateway answers itself: the 405 of a method the route lacks. */
async function methodNotAllowed(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(api(run, '/properties'), 'POST', withKey(run), run.context.timeoutMs);
  if (
    answer.status === 405 &&
    header(answer, 'allow') === 'GET, HEAD' &&
    problemName(answer) === 'method-not-allowed'
  )
    return pass('405 method-not-allowed, Allow: GET, HEAD');
  return fail(
    `${answer.status} ${problemName(answer)}, Allow "${header(answer, 'allow')}"`,
    'the ANY method (MOCK 405, CONVERT_TO_TEXT) of /properties',
  );
}

export const methodNotAllowedCheck: Check<StageRun> = {
  name: 'POST /properties',
  needs: revealCheck.name,
  run: methodNotAllowed,
};
