/**
 * `accessibleBy` with 100 rules in 10 roles (CONTRACT-4 §33), in this process (no HTTP): the
 * filter's size, and the time to build it and run it with `em.find` on an EMPTY table (SQLite in
 * memory), so that what is timed is the filter's own cost (MikroORM turning it into SQL, the
 * database planning it), not reading rows. Each run is timed alone; the CPU time per run (this
 * process's) is in the detail, as it depends less on what else the shared machine runs. The
 * figure is what a request of a user whose ability is cached pays (the filter is built once per
 * ability: filters.ts); the detail gives a user's first request too, which builds both.
 *
 * Each role, bound to its organization (`org_id`), has 8 grants (the user's own tasks, those of
 * projects they are a member of, by status, priority, through `project.archived`, …) and 2
 * refusals (archived tasks, and projects where the user is a banned member: an inverted
 * `$elemMatch`), in that order, so that every role's refusals bound the grants of the roles before
 * it. Two rules in ten go through a collection (a subquery each), as in the 48 rules.
 */
import { defineEntity, MikroORM } from '@mikro-orm/core';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { memoryAuth } from './memory-auth.js';
import { atMost, type Figure } from './figures.js';

const p = defineEntity.properties;
const FilterMember = defineEntity({
  name: 'FilterMember',
  properties: {
    id: p.integer().primary(),
    project: () => p.manyToOne(FilterProject),
    user_id: p.integer(),
    role: p.string(),
  },
});
const FilterProject = defineEntity({
  name: 'FilterProject',
  properties: {
    id: p.integer().primary(),
    archived: p.boolean(),
    members: () => p.oneToMany(FilterMember).mappedBy('project'),
  },
});
const FilterTask = defineEntity({
  name: 'FilterTask',
  properties: {
    id: p.integer().primary(),
    org_id: p.integer(),
    owner_id: p.integer().nullable(),
    status: p.string(),
    priority: p.integer(),
    done: p.boolean(),
    archived: p.boolean(),
    title: p.string(),
    project: () => p.manyToOne(FilterProject).nullable(),
  },
});

const ROLES = 10;
const RUNS = 300;

/** Role `r`'s ten rules on FilterTask: 8 grants, then 2 refusals. */
function rulesOf(r: number): object[] {
  const read = (conditions: Record<string, unknown>, inverted = false) => ({
    action: 'read',
    subject: 'FilterTask',
    conditions: { org_id: r, ...conditions },
    ...(inverted && { inverted }),
  });
  return [
    read({ owner_id: '${user.id}' }),
    read({ 'project.members.user_id': '${user.id}' }),
    read({ status: { $in: ['open', 'review'] }, done: false }),
    read({ priority: { $gte: 3 } }),
    read({ 'project.archived': false, status: 'published' }),
    read({ title: { $ne: 'secret' }, owner_id: null }),
    read({ status: 'assigned', 'project.archived': false, priority: { $lte: 2 } }),
    read({ $or: [{ status: 'shared' }, { priority: { $lt: 0 } }] }),
    read({ archived: true }, true),
    read({ 'project.members': { $elemMatch: { user_id: '${user.id}', role: 'banned' } } }, true),
  ];
}

export async function filterSizeFigures(): Promise<Figure[]> {
  const auth = await memoryAuth();
  const entities = [FilterTask, FilterProject, FilterMember];
  const orm = await MikroORM.init({
    driver: SqliteDriver,
    dbName: ':memory:',
    entities,
    debug: false,
    contextName: 'bench-filters',
  });
  try {
    await orm.schema.createSchema();
    const roles = Array.from({ length: ROLES }, (_, r) => `filter_role_${r}`);
    roles.forEach((role, r) => auth.defineRole(role, rulesOf(r) as never));
    const user = { id: 7, email: 'bench@example.com', is_admin: false, roles };
    const rules = auth.abilityFor(user).rulesFor('read', 'FilterTask').length;
    const find = async (who: typeof user) => {
      const found = await orm.em.fork().find(FilterTask, auth.accessibleBy(who, 'read', 'FilterTask', { em: orm.em }));
      if (found.length !== 0) throw new Error('filter-size: the table is not empty');
    };
    const size = Buffer.byteLength(JSON.stringify(auth.accessibleBy(user, 'read', 'FilterTask', { em: orm.em })));
    for (let i = 0; i < RUNS / 10; i++) await find(user); // warm: MikroORM's and the JIT's first runs
    // A user's ability is cached, and the filter with it (filters.ts): what every request of that
    // user pays is the lookup, a copy and em.find. A user seen for the first time (another id: the
    // rules name ${user.id}) pays the ability's and the filter's building too: in the detail.
    const warm = await timed(RUNS, () => find(user));
    const cold = await timed(RUNS, (i) => find({ ...user, id: 1_000 + i }));
    const timing = `p99 ${warm.at(0.99).toFixed(2)} ms, ${warm.cpu.toFixed(1)} ms of CPU each; SQLite in memory`;
    const coldTimes = `median ${cold.at(0.5).toFixed(2)} ms, ${cold.cpu.toFixed(1)} ms of CPU`;
    const first = `a user's first request (ability and filter built): ${coldTimes}`;
    const what = `${rules} rules in ${ROLES} roles (8 grants, 2 refusals each; 20 through project.members)`;
    return [
      atMost(
        'accessibleBy, 100 rules in 10 roles: filter size',
        size / 1024,
        8,
        'KB',
        `${size.toLocaleString('en')} bytes of JSON; ${what}`,
      ),
      atMost(
        'accessibleBy, 100 rules in 10 roles: build + em.find on an empty table',
        warm.at(0.5),
        5,
        'ms',
        `median of ${RUNS}, ${timing}; ${first}; ${what}`,
      ),
    ];
  } finally {
    await orm.close();
    await auth.close();
  }
}

/** `runs` runs of `run`, each timed alone: the quantiles of their wall time, and this process's CPU time per run. */
async function timed(runs: number, run: (i: number) => Promise<void>): Promise<{ at(q: number): number; cpu: number }> {
  const times = new Float64Array(runs);
  const cpu = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await run(i);
    times[i] = Number(process.hrtime.bigint() - started) / 1e6;
  }
  const cpuPerRun = process.cpuUsage(cpu).user / 1000 / runs;
  times.sort();
  return { at: (q) => times[Math.min(runs - 1, Math.floor(q * runs))]!, cpu: cpuPerRun };
}
