/**
 * The fixed cases of the req.em property (enforced-em.test.ts): counterexamples it found, kept as
 * they were found, and meanings worth stating that generated cases reach only now and then.
 */
import type { EnforcedCase } from './enforced-cases.js';

const plainDoc = (id: number) => ({
  id,
  org: 0 as const,
  owner: 'me' as const,
  status: null,
  level: null,
  folder: id === 1 ? 1 : null,
});
const plainDocs = [1, 2, 3, 4].map(plainDoc);
const plainFolders = [1, 2, 3].map((id) => ({ id, org: 0 as const, archived: null }));
/** Counterexamples the property found, and meanings worth stating. */
export const FIXED: EnforcedCase[] = [
  // Found by a run of the property: an update that takes a readable doc out of its folder (refused), then another.
  {
    global: [{ action: 'manage', subject: 'EDoc', conditions: { 'folder.archived': false } }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: [
      { id: 1, org: 0, archived: null },
      { id: 2, org: 0, archived: null },
      { id: 3, org: 0, archived: false },
    ],
    docs: [1, 2, 3, 4].map((id) => ({
      id,
      org: 0 as const,
      owner: 'me' as const,
      status: null,
      level: null,
      folder: id === 2 ? 3 : null,
    })),
    operations: [
      { kind: 'update', id: 2, body: { owner_id: null, folder: null }, reference: false },
      { kind: 'update', id: 1, body: { org: 0 }, reference: false },
    ],
  },
  // Found by a run of the property: a create decided through `folder.archived` where the new row has no folder.
  {
    global: [{ action: 'create', subject: 'EDoc', conditions: { 'folder.archived': { $ne: true }, level: null } }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: [1, 2, 3, 4].map((id) => ({
      id,
      org: 0 as const,
      owner: 'me' as const,
      status: null,
      level: null,
      folder: null,
    })),
    operations: [
      { kind: 'create', body: { org: 0 } },
      { kind: 'list', entity: 'EDoc' },
    ],
  },
  // Found by CI's clean run: folders by `$every` over their docs on the primary key, an organization role reading docs only.
  {
    global: [{ action: 'read', subject: 'EFolder' }],
    org: [{ action: 'read', subject: 'EDoc' }],
    place: 'own',
    scopes: undefined,
    folders: [
      { id: 1, org: 0, archived: null },
      { id: 2, org: 0, archived: null },
      { id: 3, org: 0, archived: null },
    ],
    docs: [
      { id: 1, org: 0, owner: 'me', status: null, level: null, folder: null },
      { id: 2, org: 0, owner: 'me', status: null, level: null, folder: null },
      { id: 3, org: 0, owner: 'me', status: null, level: null, folder: null },
      { id: 4, org: 0, owner: 'me', status: null, level: null, folder: 1 },
    ],
    operations: [
      { kind: 'folders', operator: '$every', test: { id: { $gt: 2 } } },
      { kind: 'findOne', id: 1 },
    ],
  },
  // Found on PostgreSQL after the first run of the whole suite: an update that moves a readable draft to another organization, then a create.
  {
    global: [{ action: 'manage', subject: 'EDoc', conditions: { 'folder.archived': false, status: 'draft' } }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: [
      { id: 1, org: 0, archived: null },
      { id: 2, org: 0, archived: false },
      { id: 3, org: 0, archived: null },
    ],
    docs: [
      { id: 1, org: 0, owner: 'me', status: null, level: null, folder: null },
      { id: 2, org: 0, owner: 'me', status: 'draft', level: null, folder: 2 },
      { id: 3, org: 0, owner: 'me', status: null, level: null, folder: null },
      { id: 4, org: 0, owner: 'me', status: null, level: null, folder: null },
    ],
    operations: [
      { kind: 'update', id: 2, body: { org: 1 }, reference: false },
      { kind: 'create', body: { org: 0 } },
    ],
  },
  // Update is decided on the row as it will be too: a draft may be edited, not made final.
  {
    global: [{ action: ['read', 'update'], subject: 'EDoc', conditions: { status: 'draft' } }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs.map((doc) => ({ ...doc, status: 'draft' })),
    operations: [
      { kind: 'update', id: 1, body: { status: 'final' }, reference: false },
      { kind: 'update', id: 2, body: { status: 'final' }, reference: true },
      { kind: 'update', id: 3, body: { level: 2 }, reference: false },
    ],
  },
  // A folder no rule names is never populated, within a token's scopes either (its filter, "no row", in a join).
  {
    global: [{ action: 'read', subject: 'EDoc' }],
    org: [],
    place: 'none',
    scopes: ['docs:read'],
    folders: plainFolders,
    docs: plainDocs,
    operations: [{ kind: 'list', entity: 'EDoc' }],
  },
  // The rules an update is decided by follow `folder` in a rule limited to fields: the row as it was is loaded with it.
  {
    global: [
      {
        action: 'update',
        subject: 'EDoc',
        conditions: { 'folder.archived': false },
        fields: ['status'],
        inverted: true,
      },
    ],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [
      { kind: 'update', id: 1, body: { status: null }, reference: true },
      { kind: 'delete', id: 1 },
    ],
  },
  // A null set on a mere reference is a change (MikroORM writes it): decided as one.
  {
    global: [],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [{ kind: 'update', id: 1, body: { folder: null }, reference: true }],
  },
  // A new row's unset columns are NULL as the rules see it (`$ne`), not missing.
  {
    global: [{ action: 'create', subject: 'EDoc', conditions: { status: { $ne: 'final' }, level: { $gt: 0 } } }],
    org: [{ action: 'manage', subject: 'EDoc', conditions: { owner_id: null } }],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [{ kind: 'create', body: { level: 1, org: 0 } }],
  },
  {
    global: [],
    org: [{ action: 'manage', subject: 'EDoc', conditions: { owner_id: null } }],
    place: 'own',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [
      { kind: 'create', body: { org: 0 } },
      { kind: 'delete', id: 1 },
    ],
  },
  // A body that sets the primary key is refused, whatever the rules allow: found, or a mere reference.
  {
    global: [{ action: 'manage', subject: 'EDoc' }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [
      { kind: 'update', id: 1, body: { org: 0, id: 7 }, reference: true },
      { kind: 'update', id: 2, body: { status: 'draft', id: 8 }, reference: false },
    ],
  },
  // In an organization too (the row was once looked up by its new key, found nothing, and the tenant went unchecked).
  {
    global: [],
    org: [{ action: 'manage', subject: 'EDoc' }],
    place: 'own',
    scopes: undefined,
    folders: plainFolders,
    docs: [...plainDocs.slice(0, 3), { ...plainDoc(4), org: 1 }],
    operations: [
      { kind: 'update', id: 1, body: { owner_id: 1, id: 9 }, reference: false },
      { kind: 'update', id: 4, body: { status: 'final', id: 9 }, reference: true },
    ],
  },
  // An update or a delete by a key that names no row is refused: nothing to decide on.
  {
    global: [{ action: 'manage', subject: 'EDoc' }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [
      { kind: 'update', id: 6, body: { status: 'draft' }, reference: true },
      { kind: 'delete', id: 5 },
    ],
  },
  // A collection operator where no rule names the entities: the read condition "no row" inside it.
  {
    global: [],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs,
    operations: [{ kind: 'folders', operator: '$some', test: { id: { $gt: 2 } } }],
  },
  // Folders readable, their docs not: no folder has some doc, none of them has one, every one has all.
  {
    global: [{ action: 'read', subject: 'EFolder' }],
    org: [],
    place: 'none',
    scopes: undefined,
    folders: plainFolders,
    docs: plainDocs.map((doc) => ({ ...doc, folder: 1 })),
    operations: [
      { kind: 'folders', operator: '$some', test: { id: { $gt: 2 } } },
      { kind: 'folders', operator: '$none', test: { org_id: { $ne: null } } },
      { kind: 'folders', operator: '$every', test: { id: { $in: [1, 4] } } },
    ],
  },
];
