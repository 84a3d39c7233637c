/**
 * Inside the package, ./orm.ts's EntityManager is MikroORM's SQL EntityManager (query builders,
 * `execute`): this augmentation, part of the package's compilation but imported by no module, so
 * that no published declaration names @mikro-orm/knex (see ./orm.ts).
 */
import type { EntityManager as SqlEntityManager } from '@mikro-orm/knex';

declare module './orm.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface EntityManager extends SqlEntityManager {}
}
