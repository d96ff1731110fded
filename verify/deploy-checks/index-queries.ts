import type { FunctionAccess, PartnerApiRoute } from '../../core/routes';
import { partnerApiRoutes, serviceFunctions } from '../../core/routes';
import type { CheckRow, Verdict } from '../checks';
import { fail, pass } from '../checks';
import { header, rawRequest } from '../http-answers';
import { addProperties, BULK_PROPERTIES } from '../test-data';
import { marketplaceIndexCheck } from './marketplace-through-index';
import { onboardingIndexCheck } from './onboarding-through-index';
import { revealCheck } from './reveal-the-key';
import type { StageRun } from './stage-run';
import { api, grantsOf, json, known, problemName, withKey } from './stage-run';

/** The partner API routes the route table grants a `Query` on the global index. */
const ROUTES_QUERYING_THE_INDEX: readonly PartnerApiRoute[] = partnerApiRoutes.filter(
  (route) => (route.access as FunctionAccess).table?.queryIndex !== undefined,
);

/**
 * The checks that settle how AWS reads `dynamodb:LeadingKeys` for a `Query` on the global index
 * (the index's partition key, as the grants assume): one per function the route table grants an
 * index query, named by the request that makes the function query the index. A partner API route
 * gets its check from the table; a page's is written below, and a function given `queryIndex`
 * without a check here fails the verification's test. They run first, right after what they need
 * (the partner, its key, the activation link), so that a deny is at the top of the report.
 */
export const INDEX_QUERY_CHECKS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ROUTES_QUERYING_THE_INDEX.map((route) => [route.id, `index query (${route.id}): GET ${route.path}`]),
  ),
  marketplacePage: marketplaceIndexCheck.name,
  onboardingPage: onboardingIndexCheck.name,
};

/** The functions the route table grants a `Query` on the global index. */
export const functionsQueryingTheIndex = (): string[] =>
  serviceFunctions.filter((spec) => spec.access.table?.queryIndex).map((spec) => spec.name);

/**
 * A partner API route that reads through the index (how AWS reads LeadingKeys there is what no
 * simulator settles), on a property of the test partner that the first of these checks writes
 * straight into the table, so that they run before any activation. A new API Gateway key can take
 * a few seconds to reach the usage plan, so a deployed stage gets a minute to accept it.
 */
async function routeThroughIndex(run: StageRun, route: PartnerApiRoute): Promise<Verdict> {
  if (run.propertyId === undefined) {
    const written = await addProperties(known(run.partnerId, 'partner'), 1, BULK_PROPERTIES);
    run.created.indexProperty = written.keys;
    run.propertyId = written.ids[0] ?? 0;
  }
  const path = api(run, route.path.replace('{propertyId}', String(run.propertyId)));
  const keyDeadline = Date.now() + (run.context.target.usagePlanKeys ? 60_000 : 0);
  let answer = await rawRequest(path, 'GET', withKey(run), run.context.timeoutMs);
  while (answer.status !== 200 && Date.now() < keyDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    answer = await rawRequest(path, 'GET', withKey(run), run.context.timeoutMs);
  }
  if (answer.status === 200 && json(answer.bytes))
    return pass(`200 for property ${run.propertyId}: read through the index`);
  const prefixes = (route.access as FunctionAccess).table?.queryIndex ?? [];
  return fail(
    `${answer.status} ${problemName(answer) || header(answer, 'x-amzn-errortype')}`,
    `dynamodb:Query on the index with LeadingKeys ${prefixes.join(', ')} (the index's partition key): ${grantsOf(route.id)}; the authorizer and the usage plan key if /usage fails too`,
  );
}

/** One per partner API route that queries the index, on a property the first of them writes. */
export const indexQueryChecks: CheckRow<StageRun> = () =>
  ROUTES_QUERYING_THE_INDEX.map((route) => ({
    name: INDEX_QUERY_CHECKS[route.id] ?? route.id,
    needs: revealCheck.name,
    run: (run) => routeThroughIndex(run, route),
  }));
