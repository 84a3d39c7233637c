/**
 * The figures of organizations (CONTRACT-3 §27):
 *
 * - **building a user's ability in an organization, cold**: in this process (no HTTP), with the
 *   demo's roles (policies/roles.json: its global roles and the project tracker's organization
 *   roles), each build for a user never seen before, so that no cache holds it; timed alone;
 * - **a route in an organization ÷ unguarded**: `/orgs/:org/guarded` (`orgRequired()` and
 *   `require({ action: 'read', subject: 'Project' })`, with the bench user's session) against
 *   `/orgs/:org/open`, the same route shape and handler without a guard (bench/org-routes.ts,
 *   which bench/server.ts mounts);
 * - **database statements per second per instance, 1,000 organizations × 10 members in use**: as
 *   bench/credential-scale.ts counts them, on PostgreSQL: 10,000 members with a session each
 *   (written directly: the figure counts statements, not password hashes), every member's
 *   guarded route used once, then all of them in turn at a steady rate.
 */
import { subject } from '@casl/ability';
import autocannon from 'autocannon';
import { toPrincipal } from '../dist/src/authorization/principal.js';
import { partsOf } from '../dist/src/instance-registry.js';
import type { AppProcess } from './app-process.js';
import { memoryAuth } from './memory-auth.js';
import { atMost, type Figure } from './figures.js';
import { BENCH_ORG } from './org-routes.js';

export { BENCH_ORG };

const BUILDS = 5_000;
const WARM_BUILDS = 1_000;

export async function orgAbilityFigures(): Promise<Figure[]> {
  const auth = await memoryAuth();
  try {
    auth.loadPolicies(new URL('../policies', import.meta.url));
    const { abilities } = partsOf(auth);
    const org = { id: 1, slug: 'acme' };
    // A member (the role with relation paths and placeholders) who registered (global role member).
    const principal = (id: number) =>
      toPrincipal({ id, email: `user${id}@example.com`, is_admin: false, roles: ['member'] });
    const build = (id: number) => abilities.abilityFor(principal(id), { org, roles: ['member'] });
    const task = subject('Task', {
      id: 1,
      org_id: 1,
      assignee_id: 7,
      project: { archived: false, members: [{ user_id: 7 }] },
    });
    if (!build(7).can('read', task) || build(8).can('read', task)) throw new Error('org-ability: unexpected decisions');
    for (let id = 100; id < 100 + WARM_BUILDS; id++) build(id); // the JIT warmed, on users of their own
    const times = new Float64Array(BUILDS);
    for (let i = 0; i < BUILDS; i++) {
      const user = principal(1_000_000 + i);
      const started = process.hrtime.bigint();
      abilities.abilityFor(user, { org, roles: ['member'] });
      times[i] = Number(process.hrtime.bigint() - started) / 1000;
    }
    times.sort();
    const at = (q: number) => times[Math.min(BUILDS - 1, Math.floor(q * BUILDS))]!;
    const rules = build(7).rules.length;
    const detail = `median of ${BUILDS.toLocaleString('en')} builds, each for a user not seen before (p99 ${at(0.99).toFixed(1)} µs); the demo's roles: global member and org role member, ${rules} rules`;
    return [atMost("building a user's ability in an organization, cold", at(0.5), 200, 'µs', detail)];
  } finally {
    await auth.close();
  }
}

const ORGS = 1_000;
const MEMBERS = 10;
const STEADY_RATE = 400;
const STEADY_SECONDS = 5;

/** The statements figure, on the application `app` runs (PostgreSQL). */
export async function orgScaleFigures(app: AppProcess, connections: number): Promise<Figure[]> {
  const statements = () => app.call<number>({ cmd: 'statements' });
  const { members } = await app.call<{ members: { slug: string; secret: string }[] }>({
    cmd: 'orgMembers',
    orgs: ORGS,
    members: MEMBERS,
  });
  const cookieName = app.ready.cookie.split('=')[0]!;
  let next = 0;
  const inTurn = (): autocannon.Options => ({
    url: app.base,
    requests: [
      {
        setupRequest: (request: autocannon.Request) => {
          const { slug, secret } = members[next++ % members.length]!;
          return {
            ...request,
            path: `/orgs/${slug}/guarded`,
            headers: { ...request.headers, cookie: `${cookieName}=${secret}` },
          };
        },
      } as autocannon.Request,
    ],
  });
  const beforeWarm = await statements();
  const warm = await autocannon({ ...inTurn(), connections, amount: members.length });
  const before = await statements();
  const started = performance.now();
  const steady = await autocannon({ ...inTurn(), connections, overallRate: STEADY_RATE, duration: STEADY_SECONDS });
  const perSecond = ((await statements()) - before) / ((performance.now() - started) / 1000);
  const refused = [warm, steady].map((result) => result.non2xx).reduce((a, b) => a + b, 0);
  const detail =
    `${members.length.toLocaleString('en')} members (${ORGS.toLocaleString('en')} organizations × ${MEMBERS}), each with a session, on /orgs/:org/guarded in turn at ` +
    `${STEADY_RATE} req/s for ${STEADY_SECONDS} s, after a first use of each (${(before - beforeWarm).toLocaleString('en')} statements)` +
    (refused ? `; ${refused} answers not 2xx` : '');
  return [
    atMost(
      'database statements per second per instance, 1,000 organizations × 10 members in use (PostgreSQL)',
      perSecond,
      5,
      'per s',
      detail,
    ),
  ];
}
