import { LRUCache } from 'lru-cache';
import { REVALIDATE_MS } from '../storage/storage.js';
import type { AuthUser } from './auth-user.js';
import type { UserService } from './service.js';

/**
 * The users behind live credentials, kept for at most REVALIDATE_MS: a role granted or taken
 * away elsewhere (another instance, the CLI) shows within a second, without a query per request.
 * Changes made through this instance's `auth.users` evict at once.
 */
export class UserCache {
  private readonly cache: LRUCache<number, AuthUser>;

  constructor(users: UserService) {
    this.cache = new LRUCache<number, AuthUser>({
      max: 50_000,
      ttl: REVALIDATE_MS,
      fetchMethod: async (id) => (await users.findById(id)) ?? undefined,
    });
    users.onChange((id) => this.cache.delete(id));
  }

  /** The user if held and fresh, without waiting. */
  peek(id: number): AuthUser | undefined {
    return this.cache.get(id);
  }

  async get(id: number): Promise<AuthUser | null> {
    return (await this.cache.fetch(id)) ?? null;
  }
}
