import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { storageContract } from './storage-contract.js';

describePostgres('storage', () => {
  storageContract({ create: createPostgresDatabase });
});
