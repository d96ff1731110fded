import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, grantsOf, problemName, withKey } from './stage-run';

async function notAcceptable(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(
    api(run, '/usage'),
    'GET',
    { ...withKey(run), Accept: 'text/html' },
    run.context.timeoutMs,
  );
  if (answer.status === 406 && problemName(answer) === 'not-acceptable') return pass('406 not-acceptable');
  return fail(`${answer.status} ${problemName(answer)}`, grantsOf('usage'));
}

export const notAcceptableCheck: Check<StageRun> = {
  name: 'GET /usage, Accept: text/html',
  needs: revealCheck.name,
  run: notAcceptable,
};
