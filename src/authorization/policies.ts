/**
 * Named policies: synchronous functions of the user and the route context. They fail closed: a
 * policy that throws, answers anything but `true`, or does not exist denies, and the reason is
 * logged (a denial that is a bug should be findable).
 */
import { logError, type LoggerHolder } from '../logger.js';
import type { Principal } from './principal.js';

export type PolicyContext = Record<string, unknown>;
export type Policy = (user: Principal, context: PolicyContext) => boolean;

export class PolicyRegistry {
  private readonly policies = new Map<string, Policy>();
  /** Bumped on every change, so cached abilities know they are stale. */
  version = 0;

  constructor(private readonly log: LoggerHolder) {}

  define(name: string, policy: Policy): void {
    if (typeof name !== 'string' || name === '')
      throw new TypeError('definePolicy(name, fn): name must be a non-empty string');
    if (typeof policy !== 'function') throw new TypeError(`definePolicy('${name}', fn): fn must be a function`);
    this.policies.set(name, policy);
    this.version++;
  }

  has(name: string): boolean {
    return this.policies.has(name);
  }

  names(): string[] {
    return [...this.policies.keys()];
  }

  /** True only if the policy exists and returns exactly `true`. */
  check(name: string, user: Principal, context: PolicyContext): boolean {
    const policy = this.policies.get(name);
    if (!policy) {
      this.log.logger.warn(`policy "${name}" denied user ${user.id}: no policy with that name is defined`);
      return false;
    }
    let result: unknown;
    try {
      result = policy(user, context);
    } catch (error) {
      logError(this.log.logger, 'error', `policy "${name}" denied user ${user.id}: it threw`, error);
      return false;
    }
    if (result === true) return true;
    if (result !== false) {
      const what =
        result instanceof Promise
          ? 'a Promise (policies must be synchronous)'
          : `${JSON.stringify(result) ?? String(result)} instead of true or false`;
      this.log.logger.warn(`policy "${name}" denied user ${user.id}: it returned ${what}`);
    }
    return false;
  }
}
