import { PortableMigration } from '../../src/storage/migrations/portable-migration.js';

/**
 * The four reports of a first start. A migration runs once per database, in its own transaction,
 * so several demo processes starting together on one fresh database seed them once.
 */
export class Migration20261123000001_seed_reports extends PortableMigration {
  override up(): void {
    this.addSql(
      this.getKnex()
        .insert([
          { team: 'north', title: 'North plan' },
          { team: 'north', title: 'North budget' },
          { team: 'south', title: 'South plan' },
          { team: 'south', title: 'South budget' },
        ])
        .into('demo_reports'),
    );
  }

  override down(): void {
    this.addSql(
      this.getKnex()
        .delete()
        .from('demo_reports')
        .whereIn('title', ['North plan', 'North budget', 'South plan', 'South budget']),
    );
  }
}
