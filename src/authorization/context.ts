/**
 * The context a policy sees: the route's URL parameters, with every parameter that is a canonical
 * decimal integer in the safe range turned into a number. "7" becomes 7 so that `user.id ===
 * user_id` works; "007", "7.0", "1e3" and "abc" stay strings, because they are not how that number
 * is written and treating them as equal would let two URLs name one resource.
 */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

export type RouteContext = Record<string, string | number | string[]>;

/**
 * Express 5 gives a wildcard parameter as its list of segments; those pass through unchanged.
 * `into`: the object to fill (a guard's own, tagged with its subject type), a new one by default.
 */
export function routeContext(
  params: Record<string, string | string[] | undefined> | undefined,
  into: RouteContext = {},
): RouteContext {
  const context = into;
  if (!params) return context;
  for (const name of Object.keys(params)) {
    const value = params[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      context[name] = value;
      continue;
    }
    const number = CANONICAL_INTEGER.test(value) ? Number(value) : NaN;
    context[name] = Number.isSafeInteger(number) ? number : value;
  }
  return context;
}
