import { AUDIT_CHAIN_LOCK } from './audit-chain-lock.js';
import { PortableMigration } from './portable-migration.js';

/**
 * The audit log (src/audit/): the `auth_events` table and, on PostgreSQL, the function that appends
 * to its hash chain in one statement. The function takes the chain's lock, reads the last row (a
 * statement inside a function sees what committed while it waited for the lock), and inserts each
 * record with the next id and SHA-256(previous hash ‖ canonical JSON), the canonical JSON being
 * computed by the caller exactly as the verifier does (src/audit/records.ts).
 */
export class Migration20261125000000_audit_log extends PortableMigration {
  override up(): void {
    this.createTable('auth_events', (table) => {
      table.integer('id').notNullable().primary();
      table.datetime('at', { useTz: true }).notNullable().index('auth_events_at_index');
      table.string('type', 40).notNullable();
      table.string('outcome', 10).notNullable();
      table.integer('user_id').nullable();
      table.string('email', 320).nullable().index('auth_events_email_index');
      table.string('ip', 64).nullable();
      table.string('user_agent', 256).nullable();
      table.string('reason', 64).nullable();
      table.text('detail').notNullable();
      table.string('hash', 64).notNullable();
      table.index(['user_id', 'id'], 'auth_events_user_id_index');
    });
    if (this.onSqlite) return;
    this.addSql(`
      create function service_auth_append_events(batch jsonb) returns table (id integer, hash text)
      language plpgsql as $$
      #variable_conflict use_column
      declare
        item jsonb;
        next_id integer;
        previous text;
      begin
        perform pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK});
        select e.id, e.hash into next_id, previous from auth_events e order by e.id desc limit 1;
        next_id := coalesce(next_id, 0);
        previous := coalesce(previous, '');
        for item in select value from jsonb_array_elements(batch) loop
          next_id := next_id + 1;
          previous := encode(sha256(convert_to(previous || (item->>'canonical'), 'UTF8')), 'hex');
          insert into auth_events (id, at, type, outcome, user_id, email, ip, user_agent, reason, detail, hash)
          values (next_id, (item->>'at')::timestamptz, item->>'type', item->>'outcome', (item->>'userId')::integer,
                  item->>'email', item->>'ip', item->>'userAgent', item->>'reason', item->>'detail', previous);
          id := next_id;
          hash := previous;
          return next;
        end loop;
      end $$`);
  }

  override down(): void {
    if (!this.onSqlite) this.addSql('drop function if exists service_auth_append_events(jsonb)');
    this.dropTable('auth_events');
  }
}
