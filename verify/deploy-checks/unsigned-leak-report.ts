import { pageFunctionName, SECRET_SCANNING_PATH } from '../../core/routes';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { rawRequest } from '../http-answers';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, grantsOf, known, withKey } from './stage-run';

/**
 * A report of the test key that no published key signed: 401 invalid-signature, and the key still
 * works (the function read GitHub's published keys, found none of that identifier, evaluated nothing).
 */
async function unsignedLeakReport(run: StageRun): Promise<Verdict> {
  const key = known(run.key, 'key');
  let status: number;
  let problem: string;
  try {
    const response = await fetch(run.context.target.activationBaseUrl + SECRET_SCANNING_PATH, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Github-Public-Key-Identifier': 'npm-run-verify',
        'Github-Public-Key-Signature': Buffer.from('not a signature').toString('base64'),
      },
      body: JSON.stringify([
        { token: key, type: 'partner_api_key', url: 'https://verify.invalid/', source: 'verify' },
      ]),
      signal: AbortSignal.timeout(run.context.timeoutMs),
    });
    status = response.status;
    problem =
      String(((await response.json().catch(() => ({}))) as { type?: unknown }).type ?? '')
        .split('/')
        .pop() ?? '';
  } catch (error) {
    return fail(`no answer (${(error as Error).message})`, grantsOf(pageFunctionName('secretScanning')));
  }
  const after = await rawRequest(api(run, '/usage'), 'GET', withKey(run), run.context.timeoutMs);
  if (status === 401 && problem === 'invalid-signature' && after.status === 200)
    return pass('401 invalid-signature, and the reported key still works');
  return fail(
    `${status} ${problem}, then GET /usage ${after.status}` +
      (status === 503
        ? ' (the function could not read the stage setting secretScanningKeysUrl: its network path to GitHub)'
        : ''),
    grantsOf(pageFunctionName('secretScanning')),
  );
}

export const unsignedLeakReportCheck: Check<StageRun> = {
  name: `POST ${SECRET_SCANNING_PATH}, unsigned`,
  needs: revealCheck.name,
  run: unsignedLeakReport,
};
