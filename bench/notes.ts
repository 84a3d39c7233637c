/**
 * The routes of the resource-authorization figures, on data of the bench's own: a `BenchNote`
 * entity (`bench_notes`, never one of the package's `service_auth_*` tables) in a MikroORM
 * instance of its own on the bench's database, and a role whose one rule lets a user read the
 * notes they own.
 *
 * - `/note-unguarded/:id` loads the note and answers it; `/note-session/:id` does the same behind
 *   `auth.loginRequired`; `/note-guarded/:id` is `auth.require({ action: 'read', subject:
 *   'BenchNote', load })` with the same load, answering `req.resource`.
 * - `/notes-accessible` and `/notes-handwritten`, both behind `auth.loginRequired`, list a page of
 *   the user's notes with the same `em.find`: the filter from `auth.accessibleBy`, or the same
 *   filter written by hand.
 */
import { defineEntity, MikroORM, type FindOptions, type InferEntity } from '@mikro-orm/core';
import type { Express, Request, Response } from 'express';
import type { ServiceAuth } from '../dist/src/index.js';
import { ormOptions } from '../dist/src/storage/orm.js';

const p = defineEntity.properties;

export const BenchNote = defineEntity({
  name: 'BenchNote',
  tableName: 'bench_notes',
  properties: {
    id: p.integer().primary().autoincrement(),
    owner_id: p.integer().index(),
    title: p.string().length(100),
  },
});
export type BenchNote = InferEntity<typeof BenchNote>;

export const NOTE_READER = 'bench_note_reader';
/** Rows in the table, spread evenly over this many owners: the bench user and others. */
export const NOTES = 1000;
export const OWNERS = 5;
/** A list page: the same options on both list routes. */
export const PAGE = 50;
const LIST: FindOptions<BenchNote> = { orderBy: { id: 'asc' }, limit: PAGE };

export interface BenchNotes {
  /** Fills the table and returns one of the user's notes; checks that the two list filters list the same rows. */
  seed(user: Express.User): Promise<{ noteId: number; accessibleBy: string }>;
  close(): Promise<void>;
}

/**
 * Defines the role, opens the bench's own ORM (the package's options for the URL: its SQLite
 * pragmas, its pool; only this entity, no migrations), creates the table and mounts the routes.
 * Call before the application's error handler is mounted; give the bench user `NOTE_READER`.
 */
export async function benchNotes(app: Express, auth: ServiceAuth, databaseUrl: string): Promise<BenchNotes> {
  auth.defineRole(NOTE_READER, [{ action: 'read', subject: 'BenchNote', conditions: { owner_id: '${user.id}' } }]);
  // A token's scopes as rules (bench/scoped-tokens.ts): the same ability check, for a scoped token and an unscoped one.
  auth.defineScope('notes:read', [{ action: 'read', subject: 'BenchNote' }], 'Read notes');
  auth.defineScope('notes:write', [{ action: ['read', 'update'], subject: 'BenchNote' }], 'Read and edit notes');
  app.get('/note-check/:owner_id', auth.require({ action: 'read', subject: 'BenchNote' }), (_req, res) => {
    res.json({ ok: true });
  });
  const orm = await MikroORM.init({
    ...(await ormOptions(databaseUrl)),
    entities: [BenchNote],
    extensions: [],
    migrations: {},
    contextName: 'bench-notes',
  });
  await orm.schema.createSchema();

  // The one load both note routes do: a fresh fork per request, so every request queries.
  const load = (req: Request) => orm.em.fork().findOne(BenchNote, { id: Number(req.params['id']) });
  const answerNote = async (req: Request, res: Response) => {
    const note = await load(req);
    if (note) res.json(note);
    else res.status(404).json({ title: 'No such BenchNote' });
  };
  app.get('/note-unguarded/:id', answerNote);
  app.get('/note-session/:id', auth.loginRequired, answerNote);
  app.get('/note-guarded/:id', auth.require({ action: 'read', subject: 'BenchNote', load }), (req, res) => {
    res.json(req.resource);
  });

  const accessible = (user: Express.User) => auth.accessibleBy<BenchNote>(user, 'read', 'BenchNote');
  const handWritten = (user: Express.User) => ({ owner_id: user.id });
  app.get('/notes-accessible', auth.loginRequired, async (req, res) => {
    res.json(await orm.em.fork().find(BenchNote, accessible(req.user!), LIST));
  });
  app.get('/notes-handwritten', auth.loginRequired, async (req, res) => {
    res.json(await orm.em.fork().find(BenchNote, handWritten(req.user!), LIST));
  });

  return {
    async seed(user) {
      const em = orm.em.fork();
      // The other owners need no account: the table is the bench's own, without a foreign key.
      const owners = [user.id, ...Array.from({ length: OWNERS - 1 }, (_, i) => 1_000_000 + i)];
      const rows = Array.from({ length: NOTES }, (_, i) => ({ owner_id: owners[i % OWNERS]!, title: `note ${i}` }));
      await em.insertMany<BenchNote>(BenchNote, rows);
      const note = await em.findOneOrFail(BenchNote, { owner_id: user.id }, { orderBy: { id: 'asc' } });
      // What the two list routes compare must be the same query result, or the figure means nothing.
      const filter = accessible(user);
      const ids = async (where: object) => (await em.fork().find(BenchNote, where, LIST)).map((row) => row.id).join();
      const [generated, written] = [await ids(filter), await ids({ owner_id: user.id })];
      if (generated !== written || written.split(',').length !== PAGE) {
        throw new Error(
          `bench notes: accessibleBy's filter ${JSON.stringify(filter)} and { owner_id: ${user.id} } list different rows`,
        );
      }
      return { noteId: note.id, accessibleBy: JSON.stringify(filter) };
    },
    close: () => orm.close(),
  };
}
