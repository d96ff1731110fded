/*
 * EventBridge's event patterns and Pipes' JSON paths and input templates, as far as the stack uses
 * them, for the local runtime: the pipe's filter (core/outbound-delivery.ts) is matched here exactly
 * as written for AWS, and its target's dynamic parameters and input template read here as Pipes
 * reads them. Anything the stack does not use is refused loudly, so a change to the stack that
 * the emulation cannot follow fails at once instead of behaving otherwise locally.
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-input-transformation.html
 */

type Json = unknown;

/** One value of a pattern's list: a literal, or one of the operators the stack uses. */
function matchesValue(rule: Json, value: Json): boolean {
  if (rule === null || typeof rule !== 'object') return value === rule;
  const [operator, ...others] = Object.keys(rule);
  if (operator === undefined || others.length > 0)
    throw new Error(`An event pattern rule must have one operator: ${JSON.stringify(rule)}`);
  const operand = (rule as Record<string, Json>)[operator];
  switch (operator) {
    case 'prefix':
      return typeof value === 'string' && typeof operand === 'string' && value.startsWith(operand);
    case 'exists':
      return (value !== undefined) === operand;

    default:
      throw new Error(`The local event patterns do not know the "${operator}" operator.`);
  }
}

/**
 * Whether an event matches a pattern: every field the pattern names matches one of the values it
 * lists (for an array in the event, any of its elements), nested objects field by field.
 */
export function matchesPattern(pattern: Json, event: Json): boolean {
  if (pattern === null || typeof pattern !== 'object' || Array.isArray(pattern))
    throw new Error(`An event pattern must be an object: ${JSON.stringify(pattern)}`);
  return Object.entries(pattern).every(([field, rule]) => {
    const value =
      event !== null && typeof event === 'object' ? (event as Record<string, Json>)[field] : undefined;
    if (Array.isArray(rule))
      return rule.some((one) => {
        if (one !== null && typeof one === 'object' && 'exists' in one) return matchesValue(one, value);
        if (value === undefined) return false;
        return (Array.isArray(value) ? value : [value]).some((candidate) => matchesValue(one, candidate));
      });
    return matchesPattern(rule, value);
  });
}

const PATH = /^\$((?:\.[A-Za-z0-9_-]+)*)$/;

/** The value at a JSON path of the dot notation Pipes supports (`$.detail.state`); undefined if absent. */
export function atPath(payload: Json, path: string): Json {
  const match = PATH.exec(path);
  if (!match) throw new Error(`The local pipe reads only dot-notation JSON paths, not "${path}".`);
  return (match[1] ?? '')
    .split('.')
    .filter((name) => name !== '')
    .reduce<Json>(
      (value, name) =>
        value !== null && typeof value === 'object' ? (value as Record<string, Json>)[name] : undefined,
      payload,
    );
}

/**
 * An input template applied to a payload. The stack's templates are a single `<$.path>`, which
 * passes the value at the path as it is (an object stays an object); a template of any other shape
 * is refused.
 */
export function applyInputTemplate(template: string, payload: Json): Json {
  const whole = /^<(\$[^<>]*)>$/.exec(template.trim());
  if (!whole?.[1])
    throw new Error(`The local pipe applies only a template of one <$.path>, not "${template}".`);
  return atPath(payload, whole[1]);
}
