/**
 * CloudWatch Logs filter patterns for JSON log events, as the local AWS endpoint evaluates them
 * (`TestMetricFilter`, `FilterLogEvents`): the syntax the stack's metric filters use, from
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html and
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/matching-terms-json-log-events.html:
 *
 * - `{ $.field = "text" }`, `!=`, with `*` as a wildcard; a bare word is a string too;
 * - `{ $.field >= 500 }` and `=`, `!=`, `<`, `<=`, `>`, `>=` on numbers;
 * - `IS NULL`, `NOT EXISTS`, `IS TRUE`, `IS FALSE`;
 * - selectors `$.a.b` and `$.list[0]`; `&&`, `||` and parentheses.
 *
 * Anything else (text terms, space-delimited patterns, regular expressions) is refused with an
 * error rather than guessed at: a pattern the emulator cannot read is one it must not call matching.
 * A message that is not a JSON object matches no JSON pattern. A comparison on a field that is
 * missing, or whose type is not the value's (a string field against a number), does not match.
 */

type Comparison = '=' | '!=' | '<' | '<=' | '>' | '>=';
type Node =
  | { readonly kind: 'and' | 'or'; readonly left: Node; readonly right: Node }
  | {
      readonly kind: 'compare';
      readonly path: Path;
      readonly op: Comparison;
      readonly value: number | string;
    }
  | { readonly kind: 'is'; readonly path: Path; readonly test: 'null' | 'true' | 'false' | 'not-exists' };
type Path = readonly (string | number)[];

export class FilterPatternError extends Error {
  override readonly name = 'FilterPatternError';
}

const TOKEN =
  /\s*(?:(\$(?:\.[A-Za-z_][\w-]*|\[\d+\])*)|("(?:[^"\\]|\\.)*")|(&&|\|\||!=|<=|>=|=|<|>|\(|\)|\{|\})|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.*-]))|([\w.*:/-]+))/y;

function tokenize(pattern: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (!/^\s*$/.test(pattern.slice(TOKEN.lastIndex))) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(pattern);
    if (!match) throw new FilterPatternError(`Cannot read the pattern at "${pattern.slice(at, at + 20)}".`);
    tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5] ?? '');
  }
  return tokens;
}

function selector(token: string): Path {
  return [...token.slice(1).matchAll(/\.([A-Za-z_][\w-]*)|\[(\d+)\]/g)].map((part) =>
    part[1] !== undefined ? part[1] : Number(part[2]),
  );
}

/** Parses a JSON filter pattern; throws FilterPatternError for anything outside the syntax above. */
export function parseFilterPattern(pattern: string): Node {
  const tokens = tokenize(pattern);
  let position = 0;
  const peek = () => tokens[position];
  const next = () => {
    const token = tokens[position];
    if (token === undefined) throw new FilterPatternError('The pattern ends too early.');
    position += 1;
    return token;
  };
  const expect = (token: string) => {
    const found = next();
    if (found.toUpperCase() !== token) throw new FilterPatternError(`Expected "${token}", found "${found}".`);
  };
  const comparison = (): Node => {
    const token = next();
    if (token === '(') {
      const inner = disjunction();
      expect(')');
      return inner;
    }
    if (!token.startsWith('$'))
      throw new FilterPatternError(`Expected a selector ($.field), found "${token}".`);
    const path = selector(token);
    const operator = next();
    if (operator.toUpperCase() === 'IS') {
      const test = next().toUpperCase();
      if (test === 'NULL' || test === 'TRUE' || test === 'FALSE')
        return { kind: 'is', path, test: test.toLowerCase() as 'null' | 'true' | 'false' };
      throw new FilterPatternError(`Expected NULL, TRUE or FALSE after IS, found "${test}".`);
    }
    if (operator.toUpperCase() === 'NOT') {
      expect('EXISTS');
      return { kind: 'is', path, test: 'not-exists' };
    }
    if (!['=', '!=', '<', '<=', '>', '>='].includes(operator))
      throw new FilterPatternError(`Expected a comparison after ${token}, found "${operator}".`);
    const raw = next();
    const quoted = raw.startsWith('"');
    const numeric = !quoted && /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw);
    if (!numeric && !['=', '!='].includes(operator))
      throw new FilterPatternError(`${operator} compares numbers; "${raw}" is not one.`);
    const value = numeric ? Number(raw) : quoted ? (JSON.parse(raw) as string) : raw;
    return { kind: 'compare', path, op: operator as Comparison, value };
  };
  const conjunction = (): Node => {
    let left = comparison();
    while (peek() === '&&') {
      next();
      left = { kind: 'and', left, right: comparison() };
    }
    return left;
  };
  const disjunction = (): Node => {
    let left = conjunction();
    while (peek() === '||') {
      next();
      left = { kind: 'or', left, right: conjunction() };
    }
    return left;
  };
  expect('{');
  const tree = disjunction();
  expect('}');
  if (position !== tokens.length)
    throw new FilterPatternError(`Unexpected "${tokens[position]}" after the pattern's closing brace.`);
  return tree;
}

const MISSING = Symbol('missing');

function valueAt(event: unknown, path: Path): unknown {
  let value: unknown = event;
  for (const step of path) {
    if (typeof value !== 'object' || value === null) return MISSING;
    if (typeof step === 'number' ? !Array.isArray(value) || step >= value.length : !(step in value))
      return MISSING;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/**
 * Whether `text` matches a pattern whose `*` stands for any characters: each piece between stars
 * is found leftmost, in order, so a match takes time linear in the text and the pattern (no
 * regular expression a crafted pattern could make backtrack).
 */
export function wildcardMatch(text: string, pattern: string): boolean {
  const pieces = pattern.split('*');
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return text === first;
  const last = pieces.at(-1) ?? '';
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last))
    return false;
  const end = text.length - last.length;
  let position = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = text.indexOf(piece, position);
    if (found === -1 || found + piece.length > end) return false;
    position = found + piece.length;
  }
  return true;
}

function holds(node: Node, event: unknown): boolean {
  switch (node.kind) {
    case 'and':
      return holds(node.left, event) && holds(node.right, event);
    case 'or':
      return holds(node.left, event) || holds(node.right, event);
    case 'is': {
      const value = valueAt(event, node.path);
      if (node.test === 'not-exists') return value === MISSING;
      if (node.test === 'null') return value === null;
      return value === (node.test === 'true');
    }
    case 'compare': {
      const value = valueAt(event, node.path);
      if (typeof node.value === 'number') {
        if (typeof value !== 'number') return false;
        switch (node.op) {
          case '=':
            return value === node.value;
          case '!=':
            return value !== node.value;
          case '<':
            return value < node.value;
          case '<=':
            return value <= node.value;
          case '>':
            return value > node.value;
          case '>=':
            return value >= node.value;
        }
      }
      if (typeof value !== 'string') return false;
      const equal = wildcardMatch(value, node.value);
      return node.op === '=' ? equal : !equal;
    }
  }
}

/** Whether a log event's message matches a JSON filter pattern (parsed once with `parseFilterPattern`). */
export function matchesFilterPattern(pattern: Node, message: string): boolean {
  let event: unknown;
  try {
    event = JSON.parse(message);
  } catch {
    return false;
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return false;
  return holds(pattern, event);
}
