/**
 * Writes made conditional on what the flush check decided on. A row req.em read itself in the
 * request is decided on as it read it, without reading it again (rows-as-they-were.ts), and its
 * UPDATE or DELETE then names, besides its key, the values it had then in every column the rules
 * read: `UPDATE … WHERE id IN (…) AND (owner_id = 7 AND team = 'red')`. The database applies the
 * condition to the row as it is when written (PostgreSQL re-evaluates it on a row another
 * transaction has just changed), so what was decided on is what is written over, with no read and
 * no lock before. A write that finds fewer rows than it names means another writer changed or
 * deleted one of them meanwhile: the flush check decides again on the rows it named, as they now
 * are (`onMissed`): 403 where `can` refuses one of them, else 409 `row_changed` (read it again).
 *
 * MikroORM builds the statements; this adds the condition where it writes them, in the driver's
 * `nativeUpdateMany`, `nativeUpdate` and `nativeDelete`. The last two take a where clause, which
 * gets the values. The batch update builds its SQL itself and hands it to the driver's `execute`
 * synchronously: an `execute` of this module's takes that one call, adds the condition to the
 * statement, and puts the driver's own back before anything else runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityMetadata, MikroORM } from '@mikro-orm/core';
import { AuthError } from '../errors.js';

type Row = Record<string, unknown>;

/** What a write must find of one row: the columns the rules read, with the values decided on (in `values`, among others). */
interface Expected {
  columns: readonly string[];
  values: Row;
}

/**
 * What one flush's writes must find, by entity (its root's name, as tables are), then by the key
 * each row had (as MikroORM names it in the write: the change set's own value, not a string of it).
 */
type Expectations = Map<string, Map<unknown, Expected>>;

/**
 * Decides on the rows a write named and did not all find (`keys`, of which it wrote `written`), as
 * they now are: throws the refusal where `can` refuses one of them.
 */
export type Recheck = (meta: EntityMetadata, keys: readonly unknown[], written: number) => Promise<void>;

type Flush = { expectations: Expectations; recheck?: Recheck };

const flushing = new AsyncLocalStorage<Flush>();

/** `work` (a flush) with its own expectations: only writes made in it are conditioned on them. */
export function withExpectations<T>(work: () => T): T {
  return flushing.run({ expectations: new Map() }, work);
}

/** How the flush under way decides again on rows a conditional write did not find. */
export function onMissed(recheck: Recheck): void {
  const flush = flushing.getStore();
  if (flush) flush.recheck = recheck;
}

/**
 * Expectations for rows of `meta`: the write of the row keyed `key` is to find `columns` as
 * `values` has them. Undefined outside a flush of req.em's; the function answers false for a row
 * whose write cannot be made conditional (a value SQL's `=` might not match as it is): the caller
 * reads that row instead.
 */
export function expecting(
  meta: EntityMetadata,
  columns: readonly { name: string }[],
): ((key: unknown, values: Row) => boolean) | undefined {
  const expectations = flushing.getStore()?.expectations;
  if (!expectations) return undefined;
  const names = columns.map((column) => column.name);
  const expected = expectations.get(meta.root.className) ?? new Map<unknown, Expected>();
  expectations.set(meta.root.className, expected);
  // Rows handed the same values (rows-as-they-were.ts shares them) share one expectation: a write compares it once.
  let last: Expected | undefined;
  return (key, values) => {
    if (!comparable(key)) return false;
    if (last?.values !== values) {
      for (let i = 0; i < names.length; i++) if (!comparable(values[names[i]!])) return false;
      last = { columns: names, values };
    }
    expected.set(key, last);
    return true;
  };
}

/** Whether the row keyed `key` was expected as read (it no longer is: it was read as it is, and is written so). */
export function forget(meta: EntityMetadata, key: unknown): boolean {
  return flushing.getStore()?.expectations.get(meta.root.className)?.delete(key) === true;
}

/** A number or a string: what `=` in SQL matches as it is (NULL equals nothing; a Date or an object may be converted). */
const comparable = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string';

/** The driver methods this wraps, as MikroORM 6 and 7 declare them (an entity's name or class first). */
interface WritingDriver {
  getMetadata(): { find(entityName: unknown): EntityMetadata | undefined };
  getPlatform(): { quoteIdentifier(name: string): string };
  execute(sql: string, params: unknown[], ...rest: unknown[]): Promise<unknown>;
  nativeUpdateMany(
    entityName: unknown,
    where: Row[],
    data: Row[],
    options?: unknown,
    ...rest: unknown[]
  ): Promise<Written>;
  nativeUpdate(entityName: unknown, where: unknown, data: Row, options?: unknown, ...rest: unknown[]): Promise<Written>;
  nativeDelete(entityName: unknown, where: unknown, options?: unknown, ...rest: unknown[]): Promise<Written>;
}
type Written = { affectedRows: number };

/** The rows of one write that expect the same values (none: rows the flush check read), with their keys. */
type Group = { expected: Expected | undefined; keys: unknown[] };

const conditioned = new WeakSet<object>();

/**
 * Makes the driver's UPDATEs and DELETEs conditional on the expectations of the flush they run in.
 * Rows expecting nothing (the flush check read them, and locked them where the database can) are
 * written as MikroORM writes them.
 */
export function conditionWrites(orm: MikroORM): void {
  // The methods MikroORM's unit of work writes with, on the one driver every EntityManager of the ORM shares.
  const driver = orm.em.getDriver() as object as WritingDriver;
  if (conditioned.has(driver)) return;
  conditioned.add(driver);
  const { nativeUpdateMany, nativeUpdate, nativeDelete } = driver;
  /** The entity's metadata and the groups of `keys` by what they expect, if any row of it expects something in this flush. */
  const expected = (entityName: unknown, keys: readonly unknown[]) => {
    const expectations = flushing.getStore()?.expectations;
    if (!expectations?.size) return undefined;
    const meta = driver.getMetadata().find(entityName);
    const rows = meta && expectations.get(meta.root.className);
    if (!rows || meta.primaryKeys.length !== 1 || !keys.some((key) => rows.has(key))) return undefined;
    const groups: Group[] = [];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const row = rows.get(key);
      // Most often every row expects the same values: the last group is tried first.
      let group = groups.at(-1);
      if (!group || !same(group.expected, row)) group = groups.find((other) => same(other.expected, row));
      if (!group) groups.push((group = { expected: row, keys: [] }));
      group.keys.push(key);
    }
    return { meta, key: meta.primaryKeys[0]!, groups, keys };
  };

  // MikroORM's batch update (`… WHERE id IN (…) RETURNING …`) with `AND owner_id = ?` (per group, with its keys, if several).
  driver.nativeUpdateMany = async function (entityName, where, data, options, ...rest) {
    const found =
      flushing.getStore() && Array.isArray(where) && expected(entityName, where.map(keyOf(this, entityName)));
    if (!found) return nativeUpdateMany.call(this, entityName, where, data, options, ...rest);
    const { meta, groups } = found;
    const params: unknown[] = [];
    const quote = (name: string) => this.getPlatform().quoteIdentifier(name);
    const column = (name: string) => quote(meta.properties[name as never]!.fieldNames[0]!);
    const clauses = groups.map(({ expected, keys }) => {
      const parts = (expected?.columns ?? []).map(
        (name) => (params.push(expected!.values[name]), `${column(name)} = ?`),
      );
      if (groups.length > 1)
        parts.push(`${column(found.key)} in (${keys.map((key) => (params.push(key), '?')).join(', ')})`);
      return parts.length ? `(${parts.join(' and ')})` : '';
    });
    // No condition at all when the rules read no column: then only the count tells whether the rows are there.
    const condition = clauses.join(' or ');
    if (!condition)
      return foundAll(await nativeUpdateMany.call(this, entityName, where, data, options, ...rest), found);
    const execute = Object.hasOwn(this, 'execute') ? this.execute : undefined;
    let writing: Promise<Written>;
    let applied = false;
    try {
      // MikroORM builds the statement and hands it to `execute` synchronously, before its first await: this
      // `execute` is in place for that one call only.
      this.execute = (sql, bound, ...others) => {
        applied = true;
        restore(this, execute);
        const at = sql.lastIndexOf(' returning ');
        const conditional =
          at < 0 ? `${sql} and (${condition})` : `${sql.slice(0, at)} and (${condition})${sql.slice(at)}`;
        return this.execute(conditional, bound.concat(params), ...others);
      };
      writing = nativeUpdateMany.call(this, entityName, where, data, options, ...rest);
    } finally {
      restore(this, execute);
    }
    if (!applied) {
      // A MikroORM that runs its UPDATE later: it ran without the condition, so the flush fails (and rolls back).
      await writing.catch(() => undefined);
      throw new TypeError('req.em could not make MikroORM’s UPDATE conditional: this MikroORM builds it otherwise');
    }
    return foundAll(await writing, found);
  };

  driver.nativeUpdate = async function (entityName, where, data, options, ...rest) {
    const found = isPlainRow(where) && expected(entityName, [keyOf(this, entityName)(where)]);
    const values = found && found.groups[0]!.expected?.values;
    if (!found || !values) return nativeUpdate.call(this, entityName, where, data, options, ...rest);
    const conditional: Row = { ...(where as Row) };
    for (const column of found.groups[0]!.expected!.columns) conditional[column] = values[column];
    return foundAll(await nativeUpdate.call(this, entityName, conditional, data, options, ...rest), found);
  };

  // MikroORM deletes by `{ [key]: { $in: keys } }`.
  driver.nativeDelete = async function (entityName, where, options, ...rest) {
    const key = this.getMetadata().find(entityName)?.primaryKeys[0];
    const keys = key && isPlainRow(where) ? (where[key] as { $in?: unknown } | undefined)?.$in : undefined;
    const found = Array.isArray(keys) && expected(entityName, keys);
    if (!found) return nativeDelete.call(this, entityName, where, options, ...rest);
    const $or = found.groups.map(({ expected, keys: some }) => {
      const condition: Row = { [found.key]: { $in: some } };
      for (const column of expected?.columns ?? []) condition[column] = expected!.values[column];
      return condition;
    });
    return foundAll(await nativeDelete.call(this, entityName, { $or }, options, ...rest), found);
  };
}

/** The key a condition names (MikroORM's `{ [key]: value }`), as a function of the condition. */
const keyOf = (driver: WritingDriver, entityName: unknown) => {
  const key = driver.getMetadata().find(entityName)?.primaryKeys[0];
  return (cond: unknown): unknown => (key && isPlainRow(cond) ? cond[key] : undefined);
};

/** Puts the driver's `execute` back: its own one if it had one, else the prototype's. */
function restore(driver: WritingDriver, execute: WritingDriver['execute'] | undefined): void {
  if (execute) driver.execute = execute;
  else delete (driver as Partial<WritingDriver>).execute;
}

/** Whether two rows expect the same (both nothing, or the same values in the same columns). */
function same(one: Expected | undefined, other: Expected | undefined): boolean {
  if (one === other) return true;
  if (!one || !other || one.columns.length !== other.columns.length) return false;
  return one.columns.every((column, i) => other.columns[i] === column && one.values[column] === other.values[column]);
}

const isPlainRow = (where: unknown): where is Row =>
  where !== null && typeof where === 'object' && Object.getPrototypeOf(where) === Object.prototype;

/** The write's result, if it found every row it named; else the flush check's refusal (403), or 409 `row_changed`. */
async function foundAll(
  written: Written,
  { meta, keys }: { meta: EntityMetadata; keys: readonly unknown[] },
): Promise<Written> {
  if (written.affectedRows === keys.length) return written;
  await flushing.getStore()?.recheck?.(meta, keys, written.affectedRows);
  const why = 'in a column the rules decide on, and is still within reach: nothing was written; read it again';
  throw new AuthError('row_changed', `A ${meta.className} changed since it was read, ${why}`);
}
