/**
 * Rows a browser is handed a key to and must hand back once, within minutes: the sign-ins started
 * at an identity provider (src/sso/attempts.ts) and the WebAuthn challenges (src/mfa/passkeys.ts).
 * One algorithm for both, so that neither can drift from it: a row is kept with its expiry (the
 * expired ones are pruned on the way, so the table holds a few minutes' worth); it is taken at most
 * once, by the delete that finds it (of two answers at once, only the one whose delete removed
 * the row goes on); and an expired row is refused even if the pruning has not reached it yet.
 * Each use supplies its table and its lifetime, and says how its key is kept and what it matches.
 */
import type { EntityName, FilterQuery, RequiredEntityData } from '@mikro-orm/core';
import type { Storage } from './storage.js';

/** What every such table has: when its row stops counting. */
export interface Expiring {
  expiresAt: Date;
}

export interface SingleUseOptions<Row extends Expiring> {
  entity: EntityName<Row>;
  /** How long a row counts after it is kept. */
  ttlMs: number;
}

export class SingleUseRows<Row extends Expiring> {
  constructor(
    private readonly storage: Storage,
    private readonly options: SingleUseOptions<Row>,
  ) {}

  /** Keeps `row` for the lifetime, after deleting the rows whose lifetime is over. */
  async keep(row: Omit<RequiredEntityData<Row>, 'expiresAt'>): Promise<void> {
    const { entity, ttlMs } = this.options;
    const em = (await this.storage.em()).fork();
    await em.nativeDelete(entity, { expiresAt: { $lte: new Date() } } as FilterQuery<Row>);
    await em.insert(entity, { ...row, expiresAt: new Date(Date.now() + ttlMs) } as RequiredEntityData<Row>);
  }

  /**
   * The row `where` finds, used up: deleted in the same step that finds it, so that only one
   * taker gets it. Null for none, one another taker got first, or an expired one (which goes too).
   */
  async take(where: FilterQuery<Row>): Promise<Row | null> {
    const { entity } = this.options;
    const em = (await this.storage.em()).fork();
    const row = await em.findOne(entity, where);
    if (!row || (await em.nativeDelete(entity, where)) === 0) return null;
    return row.expiresAt.getTime() > Date.now() ? row : null;
  }
}
