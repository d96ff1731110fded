import { ProblemError } from '../../core/contract/problems';
import { quoted } from '../../core/domain/text';
import type { PartnerApiRoute, PathParameter } from '../../core/routes';

type QueryValues = Record<string, string[] | undefined> | null | undefined;

const INTEGER = /^[0-9]{1,16}$/;

/** A route's query parameters as checked values: integers within their bounds, cursors as sent. */
export interface ParsedQuery {
  readonly integers: Record<string, number>;
  readonly cursors: Record<string, string>;
}

/**
 * Query parameters of a route, as integers within the route table's bounds (or its default) and
 * cursors of the right shape. Unknown names (a typo such as `lookback_day`) are refused rather
 * than silently ignored, and `partner_id` gets its own message: the partner comes from the key alone.
 */
export function parseQueryParameters(route: PartnerApiRoute, query: QueryValues): ParsedQuery {
  const integers: Record<string, number> = {};
  const cursors: Record<string, string> = {};
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
  for (const parameter of route.queryParameters) {
    const given = query?.[parameter.name];
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
      cursors[parameter.name] = raw;
      continue;
    }
    if (given === undefined) {
      if (parameter.default !== undefined) integers[parameter.name] = parameter.default;
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
    integers[parameter.name] = value;
  }
  return { integers, cursors };
}

/** A positive integer id from the path; anything else is a 400 naming the parameter and what it is. */
export function parsePathId(parameter: PathParameter, raw: string | undefined): number {
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
