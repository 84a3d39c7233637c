/**
 * The application's own user attributes (`auth.defineUserAttributes(['team'], resolver)`), which
 * rules name as `${user.team}`. The names are declared first, so that a role naming one can be
 * checked when it is defined (a name neither the package nor the declarations know is an error);
 * the resolver may come later. Policy files may declare the names they use (`"userAttributes"`).
 *
 * Values are read once per user, with the resolver, and held with the users (users/attribute-cache.ts)
 * until the change feed names the user (`auth.invalidateUser`, or any change to their credentials):
 * every instance reads them again within a second. A resolver that throws, or gives something that is
 * not a value a rule can compare with, makes the question unanswerable (503
 * `attributes_unavailable` from a guard); its message goes to the log and nowhere else.
 */
import { AuthError } from '../errors.js';
import { logError, type LoggerHolder } from '../logger.js';
import { UserAttributeCache, type AttributeCacheDeps } from '../users/attribute-cache.js';
import type { AttributeNames } from './attribute-names.js';
import { checkAttributeValues, withAttributes, type Principal, type UserAttributeValues } from './principal.js';

/** What the application gives for a user: its attribute values (a value left out, or null, denies). */
export type UserAttributeResolver = (user: Principal) => Promise<Record<string, unknown>> | Record<string, unknown>;

export interface AttributeDeps extends AttributeCacheDeps {
  names: AttributeNames;
  log: LoggerHolder;
}

export class UserAttributes {
  private resolver: UserAttributeResolver | undefined;
  private readonly held: UserAttributeCache<UserAttributeValues>;
  /** The users whose values are being read, by id, with how many wait: what the cache's `read` resolves for. */
  private readonly reading = new Map<number, { user: Principal; waiting: number }>();

  constructor(private readonly deps: AttributeDeps) {
    this.held = new UserAttributeCache(deps, (id) => this.resolve(id));
  }

  get names(): ReadonlySet<string> {
    return this.deps.names.names;
  }

  /** Declares the names, and the resolver if given (replacing an earlier one: held values are dropped). */
  define(names: readonly string[], resolver?: UserAttributeResolver): void {
    if (resolver !== undefined && typeof resolver !== 'function')
      throw new TypeError('defineUserAttributes(names, resolver): resolver must be a function of the user');
    this.deps.names.declare(names);
    if (resolver) {
      this.resolver = resolver;
      this.held.clear();
    }
  }

  /**
   * The user with their attribute values: those it carries already (given by service code, or
   * loaded before), else held ones, else read with the resolver. An AuthError
   * `attributes_unavailable` (503) when they cannot be read.
   */
  async load(user: Principal): Promise<Principal> {
    if (user.attributes) return user;
    const entry = this.reading.get(user.id) ?? { user, waiting: 0 };
    entry.waiting++;
    this.reading.set(user.id, entry);
    let values: UserAttributeValues | undefined;
    try {
      values = await this.held.fetch(user.id);
    } catch (error) {
      if (error instanceof AuthError) throw error;
      logError(
        this.deps.log.logger,
        'error',
        `the attributes of user ${user.id} could not be read: the resolver of defineUserAttributes threw`,
        error,
      );
      throw unavailable();
    } finally {
      if (--entry.waiting === 0) this.reading.delete(user.id);
    }
    return withAttributes(user, values ?? Object.freeze({}));
  }

  /** Drops what every instance holds for the user (within a second elsewhere: the change feed); here at once. */
  async invalidate(userId: number): Promise<void> {
    if (!Number.isSafeInteger(userId)) throw new TypeError('invalidateUser(user): expected a user (or its id)');
    await this.held.invalidate(userId);
  }

  private async resolve(id: number): Promise<UserAttributeValues> {
    const user = this.reading.get(id)?.user;
    const { resolver } = this;
    if (!user) throw new TypeError(`user attributes: no user ${id} is being read`);
    if (!resolver) {
      this.deps.log.logger.error(
        `the attributes of user ${id} could not be read: rules name them, and defineUserAttributes was given no resolver`,
      );
      throw unavailable();
    }
    const values = await resolver(user);
    try {
      return checkAttributeValues(values, `defineUserAttributes: the resolver's answer for user ${id}`);
    } catch (error) {
      this.deps.log.logger.error(error instanceof Error ? error.message : String(error));
      throw unavailable();
    }
  }
}

function unavailable(): AuthError {
  return new AuthError('attributes_unavailable', 'Your permissions could not be worked out just now; try again later');
}
