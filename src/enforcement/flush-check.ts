/**
 * The check of a flush through `req.em`, in MikroORM's `onFlush` (the change sets computed, inside
 * the flush's transaction, nothing written yet). It decides with the same `decide` as the guards:
 *
 * - create: `create` on the row as it will be, for each field set;
 * - update: `update` on the row as it was and on the row as it will be, for each changed field; as
 *   it was is as it is in the database when written: as req.em read it, its write conditional on
 *   that (conditional-writes.ts), or else read again and locked (rows-as-they-were.ts);
 * - delete: `delete` on the row as it is;
 * - a row is known by the key MikroORM writes it by (the change set's original one); an update or
 *   delete that finds no row is refused, and so is a change of a primary key;
 * - a many-to-one reference set or changed must point at a row the ability may `read` (a count
 *   through req.em's own filter), or at a row created in the same flush;
 * - in an organization, a tenant entity's new row gets the organization's id, its tenant field
 *   never changes, and a row of another organization is never changed.
 *
 * The first refusal throws `AuthError` 403 `forbidden`, naming entity, action and field; the flush
 * stops before writing, and req.em's flush rolls its transaction back.
 */
import { helper } from '@mikro-orm/core';
import type {
  ChangeSet,
  EntityManager,
  EntityMetadata,
  EventSubscriber,
  FlushEventArgs,
  MikroORM,
} from '@mikro-orm/core';
import { decider } from '../authorization/decision.js';
import { AuthError } from '../errors.js';
import { decidingAbility, isTenantEntity } from './access-conditions.js';
import { checkCascades } from './cascades.js';
import { checkCollections } from './collection-changes.js';
import { forget, onMissed } from './conditional-writes.js';
import { bindingOf, type Binding } from './bindings.js';
import { readableReferences } from './readable-references.js';
import { rowAsItWillBe } from './row-as-it-will-be.js';
import { refusal } from './refusals.js';
import { rowsAsTheyAre } from './rows-as-they-were.js';
import { ACTIONS, ruleReads, type Action, type Row, type RuleReads } from './rule-reads.js';

export class FlushCheck implements EventSubscriber {
  constructor(private readonly orm: MikroORM) {}

  async onFlush({ em, uow }: FlushEventArgs): Promise<void> {
    const binding = bindingOf(em);
    if (!binding) return;
    // The rows as they are, read in the flush's transaction without any filter.
    let fork: EntityManager | undefined;
    const plain = (): EntityManager => {
      if (!fork) {
        fork = this.orm.em.fork({ clear: true, disableContextResolution: true });
        fork.setTransactionContext(em.getTransactionContext());
      }
      return fork;
    };
    const changeSets = uow.getChangeSets();
    const created = new Set<object>();
    for (let i = 0; i < changeSets.length; i++)
      if (changeSets[i]!.type === 'create') created.add(changeSets[i]!.entity);
    const asTheyAre = rowsAsTheyAre(binding, plain, changeSets);
    const { rows: before, keys } = asTheyAre instanceof Promise ? await asTheyAre : asTheyAre;
    // One check per entity and action: the rules, the relations they follow and their deciders are looked up once.
    const checks = new Map<string, EntityCheck>();
    const checkOf = (meta: EntityMetadata, action: Action): EntityCheck => {
      const key = `${action} ${meta.className}`;
      let check = checks.get(key);
      if (!check) checks.set(key, (check = new EntityCheck(binding, plain, meta, action, created)));
      return check;
    };
    // Rows decided on again as they now are, read (and locked) in the flush's transaction; how many rows to delete are gone.
    const decideAsTheyAre = async (changes: ChangeSet<object>[]): Promise<number> => {
      const { rows: now } = await rowsAsTheyAre(binding, plain, changes, { again: true });
      let gone = 0;
      for (const [i, change] of changes.entries()) {
        const action = ACTIONS[change.type]!;
        if (action === 'delete' && !now[i]) gone++;
        else await checkOf(change.meta as EntityMetadata, action).run(change, now[i] ?? null);
      }
      return gone;
    };
    const noSuchRow = (meta: EntityMetadata) => refusal('delete', meta.className, undefined, 'there is no such row');
    // A conditional write that misses a row another writer changed meanwhile: decided on as it now is (403 if refused).
    // A row a DELETE deleted is gone, and so is one deleted meanwhile: more gone than written are the latter.
    onMissed(async (meta, missed, written) => {
      const named = new Set(missed);
      const changes = changeSets.filter((change, i) => change.meta === meta && named.has(keys[i]));
      if ((await decideAsTheyAre(changes)) > written) throw noSuchRow(meta);
    });
    let last: { meta: object; action: Action; check: EntityCheck } | undefined;
    for (let i = 0; i < changeSets.length; i++) {
      const change = changeSets[i]!;
      const action = ACTIONS[change.type];
      if (!action) continue;
      // Rows of one entity and action come together: their check is looked up once for them all.
      if (last?.meta !== change.meta || last.action !== action)
        last = { meta: change.meta, action, check: checkOf(change.meta as EntityMetadata, action) };
      // Synchronous unless the row sets a relation, which is read: no promise per row of a large flush.
      try {
        const deciding = last.check.run(change, before[i] ?? null, keys[i]);
        if (deciding) await deciding;
      } catch (refused) {
        // Refused as req.em read it: another writer may have moved it into reach since. Decided on as it now is,
        // read (and locked) in the transaction, its write no longer conditional.
        const meta = change.meta as EntityMetadata;
        if (!(refused instanceof AuthError) || !forget(meta, keys[i])) throw refused;
        if ((await decideAsTheyAre([change])) > 0) throw noSuchRow(meta);
      }
    }
    // Each a promise only when it has something to read: none for a flush of changed columns alone.
    const referencing = readableReferences(em, changeSets, created);
    if (referencing) await referencing;
    const collections = uow.getCollectionUpdates();
    const decideOn = (meta: EntityMetadata, action: Action, row: Row, field: string): void =>
      checkOf(meta, action).decideAll(row, [field]);
    if (collections.length) await checkCollections({ em, binding, plain, created, decideOn }, collections);
    const cascading = checkCascades(em, binding, plain, changeSets);
    if (cascading) await cascading;
  }
}

class EntityCheck {
  private readonly type: string;
  /** What the rules for this action read (a change to none of them decides as the row as it was), and their deciders. */
  private readonly rules: RuleReads;
  /** The last row decided on, and the fields allowed on it. */
  private allowed: { row: Row; fields: Set<string | undefined> } | undefined;
  private readonly tenantField: string | undefined;

  constructor(
    private readonly binding: Binding,
    private readonly plain: () => EntityManager,
    private readonly meta: EntityMetadata,
    private readonly action: Action,
    private readonly created: ReadonlySet<object>,
  ) {
    this.type = meta.className;
    this.rules = ruleReads(binding, meta, action);
    const tenant = binding.bound.org !== undefined && isTenantEntity(binding, meta);
    this.tenantField = tenant ? binding.tenant.fieldOf(this.type) : undefined;
  }

  /**
   * Decides on one change; `before` is the row as it is in the database (with what the rules follow), or null;
   * `key`, the key MikroORM writes it by, where known.
   */
  run(change: ChangeSet<object>, before: Row | null, key?: unknown): void | Promise<void> {
    const { binding, action, tenantField } = this;
    const payload = change.payload as Row;
    if (tenantField && action !== 'delete') this.stayInOrg(tenantField, change.entity as Row, payload);
    // MikroORM writes by the key the row had (a mere reference's new key it drops silently): a new one is refused.
    const moved = action !== 'create' && this.moved(change, key === undefined ? change.getPrimaryKey() : key);
    const changedKey = keyIn(this.meta.primaryKeys, payload) ?? (moved ? this.meta.primaryKeys[0] : undefined);
    if (action !== 'create' && changedKey)
      throw refusal(action, this.type, changedKey, 'a primary key is never changed through req.em');
    if (binding.open.has(this.type)) return;
    const fields = tenantField ? Object.keys(payload).filter((field) => field !== tenantField) : Object.keys(payload);
    if (action === 'create') return this.onAfter(change, undefined, fields.length ? fields : [undefined]);
    // Nothing to decide on is a refusal: MikroORM would write by a key that names no row.
    if (!before) throw refusal(action, this.type, undefined, 'there is no such row');
    if (tenantField && before[tenantField] !== binding.bound.org!.id) {
      throw refusal(action, this.type, undefined, 'it belongs to another organization');
    }
    if (action === 'delete') return this.decideAll(before, [undefined]);
    this.decideAll(before, fields);
    // The rules read none of the changed fields: on the row as it will be, they decide as they just did.
    if (!this.readsAny(fields)) return;
    return this.onAfter(change, before, fields);
  }

  /** Whether the entity's key is no longer `was`, the one MikroORM writes by. */
  private moved(change: ChangeSet<object>, was: unknown): boolean {
    // The key itself, mostly: asking the entity's helper (a key that is a reference) only when it differs.
    if ((change.entity as Row)[this.meta.primaryKeys[0]!] === was) return false;
    const is = helper(change.entity).getPrimaryKey();
    return was !== is && String(was) !== String(is);
  }

  /** Decides on each field of the row as it will be: at once, or once the relations it sets are read. */
  private onAfter(
    change: ChangeSet<object>,
    before: Row | undefined,
    fields: (string | undefined)[],
  ): void | Promise<void> {
    const row = rowAsItWillBe(change, before, this.meta, this.rules.hints, this.plain, this.created);
    if (row instanceof Promise) return row.then((after) => this.decideAll(after, fields));
    this.decideAll(row, fields);
  }

  /** In an organization: a new row is stamped with it; the tenant field is never set to another. */
  private stayInOrg(field: string, entity: Row, payload: Row): void {
    const orgId = this.binding.bound.org!.id;
    if (this.action === 'create' && (payload[field] === undefined || payload[field] === null)) {
      payload[field] = orgId;
      entity[field] = orgId;
    } else if (Object.hasOwn(payload, field) && payload[field] !== orgId) {
      // An update is of a row of this organization (checked on the row as it was): its tenant field stays.
      throw refusal(this.action, this.type, field, 'names another organization than the one of the request');
    }
  }

  /** Whether the rules read any of `fields`. (Loops, not closures: asked for every row of a large flush.) */
  private readsAny(fields: string[]): boolean {
    for (let i = 0; i < fields.length; i++) if (this.rules.reads.has(fields[i]!)) return true;
    return false;
  }

  decideAll(row: Row, fields: (string | undefined)[]): void {
    // Rows holding the same values where the rules read (often all of a large flush's) get the same answers.
    const read = this.rules.props;
    let same = this.allowed !== undefined;
    if (same && row !== this.allowed!.row)
      for (let i = 0; same && i < read.length; i++) same = row[read[i]!] === this.allowed!.row[read[i]!];
    if (!same) this.allowed = { row, fields: new Set() };
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (this.allowed!.fields.has(field)) continue;
      if (!this.deciderOf(field)(row)) throw refusal(this.action, this.type, field);
      this.allowed!.fields.add(field);
    }
  }

  /** The same decision as the guards' (`decide`), its rules looked up once per field for the ability. */
  private deciderOf(field: string | undefined): (row: Row) => boolean {
    let held = this.rules.deciders.get(field);
    if (!held) {
      const ability = decidingAbility(this.binding, this.binding.bound, this.meta);
      const decision = decider(ability, this.action, this.type, field);
      this.rules.deciders.set(field, (held = (row) => decision(row).allowed));
    }
    return held;
  }
}

/** The first of `keys` that `payload` sets. (A loop: asked for every row of a large flush.) */
function keyIn(keys: readonly string[], payload: Row): string | undefined {
  for (let i = 0; i < keys.length; i++) if (Object.hasOwn(payload, keys[i]!)) return keys[i];
  return undefined;
}
