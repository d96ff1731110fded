import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { header, rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, grantsOf, json, problemName, withKey } from './stage-run';

/** The authorizer's key read and the limiter's write. */
async function usage(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(api(run, '/usage'), 'GET', withKey(run), run.context.timeoutMs);
  if (
    answer.status === 200 &&
    header(answer, 'ratelimit').includes('r=') &&
    json(answer.bytes)?.partner_id !== undefined
  )
    return pass(`200, ${header(answer, 'ratelimit')}`);
  return fail(
    `${answer.status} ${problemName(answer) || header(answer, 'x-amzn-errortype')}`,
    `dynamodb:GetItem APIKEY# (${grantsOf('authorizer')}); dynamodb:Query and UpdateItem (${grantsOf('usage')}); the usage plan key (apiKeySource AUTHORIZER)`,
  );
}

export const usageCheck: Check<StageRun> = {
  name: 'GET /usage: authorizer key read, limiter write',
  needs: revealCheck.name,
  run: usage,
};
