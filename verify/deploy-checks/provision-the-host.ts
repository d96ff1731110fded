import { fillForm, pageTitle, postFormOf } from '../browser-session';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { marketplaceIndexCheck } from './marketplace-through-index';
import type { StageRun } from './stage-run';
import { grantsOf, known } from './stage-run';

/** The marketplace's form posted: the provisioning, one TransactWriteItems evaluated item by item. */
async function provisionTheHost(run: StageRun): Promise<Verdict> {
  const marketplace = known(run.page, 'marketplace');
  const form = postFormOf(marketplace.html);
  const provisioned = form
    ? await run.browser.open(new URL(form.action, marketplace.url).toString(), {
        method: 'POST',
        body: fillForm(form, 'Deploy verification'),
      })
    : undefined;
  if (provisioned?.status !== 303 || !provisioned.location)
    return fail(
      `marketplace ${marketplace.status}, POST ${provisioned?.status ?? '-'} ${pageTitle(provisioned?.html ?? marketplace.html)}`,
      `dynamodb:TransactWriteItems, evaluated per item (Put, Update, ConditionCheck with LeadingKeys): ${grantsOf('marketplacePage')}`,
    );
  run.next = provisioned.location;
  return pass('303 to the onboarding wizard');
}

export const provisionCheck: Check<StageRun> = {
  name: 'provision the host (marketplace POST: one TransactWriteItems)',
  needs: marketplaceIndexCheck.name,
  run: provisionTheHost,
};
