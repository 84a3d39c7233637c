/**
 * Writing a time noted in memory (a token's `last_used_at`, a session's `last_seen_at`) into many
 * rows, each its own value, in one statement per flush rather than one per row:
 *
 *     update t set col = case key when ? then cast(? as <column type>) … end where key in (?, …)
 *
 * The cast gives PostgreSQL the column's type for the parameters (it would read them as text);
 * SQLite reads the type name for its affinity. Names and types come from the entity's metadata.
 */
import type { EntityKey, EntityName } from '@mikro-orm/core';
import type { EntityManager } from './orm.js';

/** Rows per statement: well inside SQLite's and PostgreSQL's limits on bound parameters. */
const ROWS_PER_STATEMENT = 1000;

export async function updateTimes<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  key: EntityKey<T>,
  column: EntityKey<T>,
  times: [string, number][],
): Promise<void> {
  const platform = em.getPlatform();
  const meta = em.getMetadata().get(entity);
  const keyColumn = platform.quoteIdentifier(meta.properties[key]!.fieldNames[0]!);
  const timeProperty = meta.properties[column]!;
  const timeColumn = platform.quoteIdentifier(timeProperty.fieldNames[0]!);
  const table = platform.quoteIdentifier(meta.tableName);
  for (let start = 0; start < times.length; start += ROWS_PER_STATEMENT) {
    const chunk = times.slice(start, start + ROWS_PER_STATEMENT);
    const cases = chunk.map(() => `when ? then cast(? as ${timeProperty.columnTypes[0]})`).join(' ');
    const keys = chunk.map(() => '?').join(', ');
    const params = [
      ...chunk.flatMap(([id, time]) => [id, platform.processDateProperty(new Date(time))]),
      ...chunk.map(([id]) => id),
    ];
    await em
      .getConnection()
      .execute(
        `update ${table} set ${timeColumn} = case ${keyColumn} ${cases} end where ${keyColumn} in (${keys})`,
        params,
        'run',
      );
  }
}
