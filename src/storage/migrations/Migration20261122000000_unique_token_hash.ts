import { PortableMigration } from './portable-migration.js';

/**
 * A token's hash is unique: PBKDF2 hashes are salted, and a legacy token imported twice (two
 * imports at once) would otherwise leave a second row that keeps working after the first is
 * revoked.
 */
export class Migration20261122000000_unique_token_hash extends PortableMigration {
  override up(): void {
    this.alterTable('service_auth_api_tokens', (table) => {
      table.dropIndex(['hash'], 'service_auth_api_tokens_hash_index');
      table.unique(['hash'], { indexName: 'service_auth_api_tokens_hash_unique' });
    });
  }

  override down(): void {
    this.alterTable('service_auth_api_tokens', (table) => {
      table.dropUnique(['hash'], 'service_auth_api_tokens_hash_unique');
      table.index(['hash'], 'service_auth_api_tokens_hash_index');
    });
  }
}
