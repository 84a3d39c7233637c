/**
 * The figures of routes whose rules follow relations or live in an organization, against the same
 * routes with the check written by hand or without a guard (bench/tasks.ts, bench/orgs.ts).
 */
import type { AppProcess } from './app-process.js';
import { atLeast, type Figure } from './figures.js';
import { ratio, ratios, type LoadSettings } from './load.js';
import { BENCH_ORG } from './orgs.js';
import { versus } from './run-settings.js';

/**
 * Rules that follow relations (bench/tasks.ts): the load guard through `project.members` against
 * the same load with a hand-written populate and check, both behind the session; `accessibleBy`
 * with a to-many path against the hand-written `$some` filter, with the same em.find.
 */
export async function relationFigures(
  settings: LoadSettings,
  cpu: () => Promise<number>,
  base: string,
  ready: AppProcess['ready'],
  cookie: Record<string, string>,
): Promise<Figure[]> {
  const guarded = await ratio(
    settings,
    cpu,
    `${base}/task-handwritten/${ready.taskId}`,
    `${base}/task-guarded/${ready.taskId}`,
    cookie,
    cookie,
  );
  const list = await ratio(settings, cpu, `${base}/tasks-handwritten`, `${base}/tasks-accessible`, cookie, cookie);
  return [
    atLeast(
      'load guard through project.members ÷ the same load with a hand-written populate and check',
      guarded.ratio,
      0.83,
      versus(guarded),
    ),
    atLeast(
      'accessibleBy through project.members + em.find ÷ the same em.find with a hand-written $some filter',
      list.ratio,
      0.83,
      `${versus(list)}; accessibleBy gave ${ready.accessibleTasks}`,
    ),
  ];
}

/**
 * A route in an organization (bench/orgs.ts): `orgRequired` and `require` with the session against
 * the same route shape unguarded (the cookie sent, not read); the session guard alone, in the same
 * rounds, shows the session's part.
 */
export async function orgRouteFigure(
  settings: LoadSettings,
  cpu: () => Promise<number>,
  base: string,
  cookie: Record<string, string>,
): Promise<Figure> {
  const org = (route: string) => ({ url: `${base}/orgs/${BENCH_ORG}/${route}`, headers: cookie });
  // Express tries each route in turn: the unguarded one, registered both before and after the
  // guarded one (bench/org-routes.ts), counts as their mean, so that neither side pays for its place.
  const [guarded, sessionOnly] = await ratios(
    settings,
    cpu,
    [org('open'), org('open-after')],
    [org('guarded'), { url: `${base}/session`, headers: cookie }],
  );
  const detail = `${versus(guarded!)}; the session guard alone (loginRequired) instead: ${sessionOnly!.ratio.toFixed(2)}`;
  return atLeast('route in an organization (orgRequired + require) ÷ unguarded', guarded!.ratio, 0.9, detail);
}
