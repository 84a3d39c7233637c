/** A migration's statements as MikroORM 6 compiles them, for each database. */
export interface FrozenMigration {
  readonly sqlite: Statements;
  readonly postgresql: Statements;
}

export interface Statements {
  readonly up: readonly string[];
  readonly down: readonly string[];
}
