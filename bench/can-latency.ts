/**
 * `can` on a warm ability of 1,000 rules, in this process (no HTTP): 100 roles of 10 rules each,
 * every rule with conditions (the role's `org_id`, and the user through `project.members.user_id`
 * or `owner_id`), all held by one user; so that each (action, subject) CASL is asked about has 100
 * candidate rules. Each call is timed alone; the figure is the 99th percentile over tasks whose
 * deciding rule comes first, in the middle, last, and none (every rule tried).
 */
import { subject } from '@casl/ability';
import { memoryAuth } from './memory-auth.js';
import { atMost, type Figure } from './figures.js';

const ROLES = 100;
const SUBJECTS = ['Task', 'Project', 'Note', 'Report', 'Invoice'];
const CALLS = 200_000;

export async function canLatencyFigures(): Promise<Figure[]> {
  const auth = await memoryAuth();
  try {
    const roles = Array.from({ length: ROLES }, (_, r) => `org_role_${r}`);
    roles.forEach((role, r) =>
      auth.defineRole(
        role,
        Array.from({ length: 10 }, (_, k) => ({
          action: k % 2 ? 'update' : 'read',
          subject: SUBJECTS[Math.floor(k / 2)]!,
          conditions:
            k < 2 ? { org_id: r, 'project.members.user_id': '${user.id}' } : { org_id: r, owner_id: '${user.id}' },
        })),
      ),
    );
    const ability = auth.abilityFor({ id: 7, email: 'bench@example.com', is_admin: false, roles });
    const rules = ability.rules.length;
    const members = [1, 2, 3, 7, 9].map((user_id) => ({ user_id }));
    const tasks = [0, 50, ROLES - 1, 1000].map((org_id) =>
      subject('Task', { id: org_id, org_id, project: { archived: false, members } }),
    );
    const allowed = tasks.map((task) => ability.can('read', task));
    if (allowed.join() !== 'true,true,true,false')
      throw new Error(`can-latency: unexpected decisions ${allowed.join()}`);

    for (let i = 0; i < CALLS / 10; i++) ability.can('read', tasks[i % tasks.length]!); // warm: CASL compiles each rule's matcher on first use
    const times = new Float64Array(CALLS);
    for (let i = 0; i < CALLS; i++) {
      const task = tasks[i % tasks.length]!;
      const started = process.hrtime.bigint();
      ability.can('read', task);
      times[i] = Number(process.hrtime.bigint() - started) / 1000;
    }
    times.sort();
    const at = (q: number) => times[Math.min(CALLS - 1, Math.floor(q * CALLS))]!;
    const detail = `median ${at(0.5).toFixed(2)} µs, p99.9 ${at(0.999).toFixed(2)} µs over ${CALLS.toLocaleString('en')} calls; ${rules.toLocaleString('en')} rules, ${ROLES} of them for (read, Task), through project.members.user_id`;
    return [atMost('can() on a warm ability of 1,000 rules (100 roles × 10), p99', at(0.99), 5, 'µs', detail)];
  } finally {
    await auth.close();
  }
}
