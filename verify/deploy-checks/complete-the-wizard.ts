import { fillForm, pageTitle, postFormOf } from '../browser-session';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { onboardingIndexCheck } from './onboarding-through-index';
import type { StageRun } from './stage-run';
import { grantsOf, known } from './stage-run';

/** Every step of the wizard submitted with test answers, to the page that has no form. */
async function completeTheWizard(run: StageRun): Promise<Verdict> {
  let page = known(run.page, 'wizard');
  let steps = 0;
  let stuck: string | undefined;
  for (let form = postFormOf(page.html); form && steps < 10; form = postFormOf(page.html)) {
    steps += 1;
    const submitted = await run.browser.open(new URL(form.action, page.url).toString(), {
      method: 'POST',
      body: fillForm(form, 'Deploy verification test data'),
    });
    if (submitted.status !== 303 || !submitted.location) {
      stuck = `step ${steps}: ${submitted.status} ${pageTitle(submitted.html)}`;
      break;
    }
    page = await run.browser.open(submitted.location);
  }
  if (!stuck && page.status === 200 && !postFormOf(page.html))
    return pass(`${steps} steps, ends on "${pageTitle(page.html)}"`);
  return fail(
    stuck ?? `${page.status} ${pageTitle(page.html)}`,
    `dynamodb:GetItem, Query, UpdateItem PARTNER#, PROPERTY# and PutItem AUDIT#: ${grantsOf('onboardingPage')}`,
  );
}

export const wizardCheck: Check<StageRun> = {
  name: 'complete the onboarding wizard',
  needs: onboardingIndexCheck.name,
  run: completeTheWizard,
};
