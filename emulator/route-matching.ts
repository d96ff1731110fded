/**
 * How the local API Gateway emulation finds the route of a request in a route table (the route
 * table itself, `core/routes.ts`, says nothing about matching: API Gateway does that in AWS).
 */
export type RouteMatch<R> =
  | { readonly kind: 'match'; readonly route: R; readonly pathParameters: Record<string, string> }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[]; readonly path: string }
  | { readonly kind: 'no-route' };

function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const templateParts = template.split('/');
  const pathParts = path.split('/');
  if (templateParts.length !== pathParts.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, part] of templateParts.entries()) {
    const actual = pathParts[index] ?? '';
    const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
    if (parameter) {
      if (actual === '') return undefined;
      parameters[parameter] = decodeURIComponentSafe(actual);
    } else if (part !== actual) {
      return undefined;
    }
  }
  return parameters;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Matches a method and path against a table, as API Gateway matches resources then methods. */
export function matchRoute<R extends { readonly path: string }>(
  routes: readonly R[],
  methodsOf: (route: R) => readonly string[],
  method: string,
  path: string,
): RouteMatch<R> {
  const allow = new Set<string>();
  let template = '';
  for (const route of routes) {
    const pathParameters = matchTemplate(route.path, path);
    if (!pathParameters) continue;
    if (methodsOf(route).includes(method)) return { kind: 'match', route, pathParameters };
    for (const allowed of methodsOf(route)) allow.add(allowed);
    template = route.path;
  }
  return allow.size > 0
    ? { kind: 'method-not-allowed', allow: [...allow], path: template }
    : { kind: 'no-route' };
}
