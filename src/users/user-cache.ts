import { RowCache } from '../storage/row-cache.js';
import type { AuthUser } from './auth-user.js';
import type { UserService } from './service.js';

/**
 * The users behind live credentials, kept for at most REVALIDATE_MS: a role granted or taken
 * away elsewhere (another instance, the CLI) shows within a second, without a query per request.
 * Changes made through this instance's `auth.users` evict at once.
 */
export class UserCache {
  private readonly rows: RowCache<number, AuthUser>;

  constructor(users: UserService) {
    this.rows = new RowCache(async (id) => (await users.findById(id)) ?? undefined);
    users.onChange((id) => this.rows.delete(id));
  }

  /** The user if held and fresh, without waiting. */
  peek(id: number): AuthUser | undefined {
    return this.rows.peek(id);
  }

  async get(id: number): Promise<AuthUser | null> {
    return (await this.rows.fetch(id)) ?? null;
  }
}
