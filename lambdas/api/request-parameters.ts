import { ProblemError } from '../../core/contract/problems';
import { quoted } from '../../core/domain/text';
import type { PartnerApiRoute, PathParameter, PathValues, QueryValues } from '../../core/routes';

type MultiValueQuery = Record<string, string[] | undefined> | null | undefined;

const INTEGER = /^[0-9]{1,16}$/;

/**
 * Query parameters of a route, as integers within the route table's bounds (or its default),
 * cursors of the right shape and texts that match their pattern. Unknown names (a typo such as
 * `lookback_day`) are refused rather than silently ignored, and `partner_id` gets its own message:
 * the partner comes from the key alone.
 */
export function parseQueryParameters<Route extends PartnerApiRoute>(
  route: Route,
  query: MultiValueQuery,
): QueryValues<Route> {
  const values: Record<string, number | string | undefined> = {};
  const known = new Set(route.queryParameters.map((parameter) => parameter.name));
  for (const name of Object.keys(query ?? {})) {
    if (name === 'partner_id') {
      throw new ProblemError(
        'invalid-request',
        'partner_id is not accepted: your partner account is identified by your API key alone.',
      );
    }
    if (!known.has(name)) {
      const allowed =
        known.size > 0 ? `Allowed: ${[...known].join(', ')}.` : 'This endpoint takes no query parameters.';
      throw new ProblemError('invalid-request', `Unknown query parameter "${quoted(name, 64)}". ${allowed}`);
    }
  }
  // Parameters that cannot go together first: the answer then names the one to leave out, whatever
  // else is wrong with the other (a cursor without its limit, say).
  for (const parameter of route.queryParameters) {
    if (parameter.kind !== 'text' || query?.[parameter.name] === undefined) continue;
    const excluded = parameter.excludes.find((name) => query?.[name] !== undefined);
    if (excluded !== undefined)
      throw new ProblemError(
        'invalid-request',
        `${parameter.name} does not go with ${excluded}: it answers one property at most, on one page. Leave ${excluded} out.`,
      );
  }
  for (const parameter of route.queryParameters) {
    const given = query?.[parameter.name];
    values[parameter.name] = undefined;
    if (parameter.kind === 'text') {
      if (given === undefined) continue;
      const [raw = ''] = given;
      if (given.length !== 1 || !new RegExp(parameter.pattern).test(raw))
        throw new ProblemError(
          'invalid-request',
          `Give ${parameter.name} once, as ${parameter.expected}; got "${quoted(given.join(','), 32)}".`,
        );
      values[parameter.name] = raw;
      continue;
    }
    if (parameter.kind === 'cursor') {
      if (given === undefined) continue;
      const [raw = ''] = given;
      if (given.length !== 1 || raw.length === 0 || raw.length > parameter.maxLength)
        throw new ProblemError(
          'invalid-request',
          `Give ${parameter.name} once, exactly as the Link header of the previous page has it.`,
        );
      if (query?.[parameter.requires] === undefined)
        throw new ProblemError(
          'invalid-request',
          `${parameter.name} goes with ${parameter.requires}: follow the Link header of the previous page, which has both.`,
        );
      values[parameter.name] = raw;
      continue;
    }
    if (given === undefined) {
      values[parameter.name] = parameter.default;
      continue;
    }
    const range = `an integer from ${parameter.minimum} to ${parameter.maximum}`;
    if (given.length !== 1)
      throw new ProblemError('invalid-request', `Give ${parameter.name} once, as ${range}.`);
    const [raw = ''] = given;
    const value = INTEGER.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= parameter.minimum && value <= parameter.maximum)) {
      throw new ProblemError(
        'invalid-request',
        `${parameter.name} must be ${range}; got "${quoted(raw, 32)}".`,
      );
    }
    values[parameter.name] = value;
  }
  return byParameterName(values);
}

/** A route's path ids, each checked by {@link parsePathId}. */
export function parsePathParameters<Route extends PartnerApiRoute>(
  route: Route,
  path: Record<string, string | undefined> | null | undefined,
): PathValues<Route> {
  return byParameterName(
    Object.fromEntries(
      route.pathParameters.map((parameter) => [
        parameter.name,
        parsePathId(parameter, path?.[parameter.name]),
      ]),
    ),
  );
}

/**
 * Values keyed by the route table's parameter names, as the route's mapped type: the loops above
 * set one value per parameter of the route (undefined for an absent optional one), which the
 * compiler cannot follow through a loop, so this is the one place that says so.
 */
function byParameterName<Values>(values: Record<string, unknown>): Values {
  return values as Values;
}

/** A positive integer id from the path; anything else is a 400 naming the parameter and what it is. */
function parsePathId(parameter: PathParameter, raw: string | undefined): number {
  const value = raw !== undefined && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new ProblemError(
      'invalid-request',
      `${parameter.name} must be a positive integer (${lowerFirst(parameter.description).replace(/\.$/, '')}); got "${quoted(raw ?? '', 32)}".`,
    );
  }
  return value;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
