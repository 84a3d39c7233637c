import { SqlMigration } from './sql-migration.js';

const TITLES = "('North plan', 'North budget', 'South plan', 'South budget')";
const SEED = {
  up: [
    'insert into demo_reports (team, title) values ' +
      "('north', 'North plan'), ('north', 'North budget'), ('south', 'South plan'), ('south', 'South budget')",
  ],
  down: [`delete from demo_reports where title in ${TITLES}`],
};

/**
 * The four reports of a first start. A migration runs once per database, in its own transaction,
 * so several demo processes starting together on one fresh database seed them once.
 */
export class Migration20261123000001_seed_reports extends SqlMigration {
  protected readonly sqlite = SEED;
  protected readonly postgresql = SEED;
}
