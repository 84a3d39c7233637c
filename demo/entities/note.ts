import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * A user's note. The role `member` reads and updates the notes whose `owner_id` is the user's id:
 * the property is named as the rule names it (CASL conditions and `accessibleBy` use property
 * names), and holds a service-auth user id.
 */
export const Note = defineEntity({
  name: 'Note',
  tableName: 'demo_notes',
  properties: {
    id: p.integer().primary().autoincrement(),
    owner_id: p.integer().index(),
    title: p.string().length(200),
    body: p.text(),
  },
});

export type Note = InferEntity<typeof Note>;
