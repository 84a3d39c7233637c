/**
 * `auth.enforce(orm, { public })`: the application's MikroORM registered, and the EntityManagers
 * bound to an ability that `req.em` and `auth.em(…)` hand out (entity-manager.ts), whose flushes
 * are checked (flush-check.ts). No HTTP here: the guards hand over the request's ability.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { AccessDeps, Bound } from './access-conditions.js';
import { conditionWrites } from './conditional-writes.js';
import { enforcedFork } from './entity-manager.js';
import { FlushCheck } from './flush-check.js';

/** An entity as `public` names it: its class or schema (anything with a `name`), or its name. */
export type EntityName = string | { readonly name: unknown };

export interface EnforceOptions {
  /** Entities every signed-in request may read and write through `req.em`, whatever the rules (a list of countries). */
  public?: readonly EntityName[];
}

const checked = new WeakSet<MikroORM>();

export class Enforcement {
  private readonly open: ReadonlySet<string>;

  constructor(
    private readonly orm: MikroORM,
    options: EnforceOptions,
    private readonly deps: AccessDeps,
  ) {
    if (!orm || typeof orm !== 'object' || typeof orm.getMetadata !== 'function' || !orm.em) {
      throw new TypeError('auth.enforce(orm): pass the MikroORM instance of your entities (MikroORM.init(…))');
    }
    if (orm.config.get('filtersOnRelations') === false) {
      throw new TypeError(
        'auth.enforce(orm): the ORM is configured with filtersOnRelations: false, ' +
          'with which req.em could not keep hidden rows out of relations',
      );
    }
    const names = (options.public ?? []).map((entity) => {
      const name = typeof entity === 'string' ? entity : String(entity?.name);
      const meta = orm.getMetadata().find(name);
      if (!meta) throw new TypeError(`auth.enforce(orm, { public }): the ORM knows no entity named "${name}"`);
      return meta.className;
    });
    this.open = new Set(names);
    // One check per ORM, however many ServiceAuth instances enforce on it: it decides by each flush's own binding.
    if (!checked.has(orm)) {
      orm.em.getEventManager().registerSubscriber(new FlushCheck(orm));
      conditionWrites(orm);
    }
    checked.add(orm);
  }

  /** A new EntityManager bound to the ability (and organization). */
  em(bound: Bound): EntityManager {
    return enforcedFork(this.orm, { ...this.deps, bound, open: this.open });
  }
}
