import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * A team's report. `GET /reports` lists the ones the user's rules let them read
 * (`auth.accessibleBy(user, 'read', 'Report')`), so property names are what rules name (`team`).
 */
export const Report = defineEntity({
  name: 'Report',
  tableName: 'demo_reports',
  properties: {
    id: p.integer().primary().autoincrement(),
    team: p.string().length(64),
    title: p.string().length(200),
  },
});

export type Report = InferEntity<typeof Report>;
