import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { rawRequest } from '../http-answers';
import { provisionCheck } from './provision-the-host';
import type { StageRun } from './stage-run';
import { api, grantsOf, json, withKey } from './stage-run';

/** The partner's properties, the activated one among them. */
async function properties(run: StageRun): Promise<Verdict> {
  const answer = await rawRequest(api(run, '/properties'), 'GET', withKey(run), run.context.timeoutMs);
  const list = (json(answer.bytes)?.properties ?? []) as { id: number; name: string }[];
  if (answer.status === 200 && list.some((property) => property.name === run.hostName))
    return pass(`200, ${list.length} in the list, the activated property among them`);
  return fail(
    `${answer.status}, ${list.length} properties`,
    `dynamodb:Query PARTNER#: ${grantsOf('properties')}`,
  );
}

export const propertiesCheck: Check<StageRun> = {
  name: 'GET /properties',
  needs: provisionCheck.name,
  run: properties,
};
