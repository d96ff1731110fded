import { pageTitle, postFormOf } from '../browser-session';
import type { Check, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { openLinkCheck } from './open-activation-link';
import type { StageRun } from './stage-run';
import { grantsOf, known } from './stage-run';

/** The next page of the walk, which shows its form only once it read the product catalog through the index. */
export async function catalogThroughIndex(
  run: StageRun,
  functionName: 'marketplacePage' | 'onboardingPage',
): Promise<Verdict> {
  const page = await run.browser.open(known(run.next, 'page to open'));
  run.page = page;
  if (page.status === 200 && postFormOf(page.html))
    return pass(`200, "${pageTitle(page.html)}": the catalog read through the index`);
  return fail(
    `${page.status} ${pageTitle(page.html)}`,
    `dynamodb:Query on the index with LeadingKeys PRODUCTS: ${grantsOf(functionName)}`,
  );
}

export const marketplaceIndexCheck: Check<StageRun> = {
  name: 'index query (marketplacePage): GET the marketplace',
  needs: openLinkCheck.name,
  run: (run) => catalogThroughIndex(run, 'marketplacePage'),
};
