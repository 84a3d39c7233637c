/** The sign-in through identity providers, built from the configuration (wiring.ts hands it the rest). */
import type { AuditLog } from '../audit/audit-log.js';
import type { SignIn } from '../authentication/sign-in.js';
import type { AuthConfig } from '../config/config.js';
import type { LoginTickets } from '../mfa/login-tickets.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/storage.js';
import { SsoAttempts } from './attempts.js';
import { ProviderClients } from './client.js';
import { SsoFlow, type SsoFlowDeps } from './flow.js';
import { Identities } from './identities.js';
import { IdentityProviders } from './providers.js';

export interface SsoParts {
  /** The providers (SERVICE_AUTH_SSO_*, `auth.addIdentityProvider`). */
  providers: IdentityProviders;
  /** The identities linked to users. */
  identities: Identities;
  flow: SsoFlow;
}

export function createSso(
  config: AuthConfig,
  parts: {
    storage: Storage;
    audit: AuditLog;
    signIn: SignIn;
    tickets: LoginTickets;
    users: SsoFlowDeps['users'];
    creation: SsoFlowDeps['creation'] & { hasPassword(userId: number): Promise<boolean> };
    passkeys: { has(userId: number): Promise<boolean> };
    pluggable: { logger: Logger };
  },
): SsoParts {
  const { storage, audit, creation, passkeys, pluggable } = parts;
  // The person is told only that the provider did not sign them in; the operator, what failed.
  const providerFailed = (id: string, kind: string) =>
    pluggable.logger.warn(`sign-in through identity provider "${id}" failed on the provider's side: ${kind}`);
  const providers = new IdentityProviders(config.sso.providers);
  const identities = new Identities({
    storage,
    audit,
    hasOtherWayIn: async (userId) => (await creation.hasPassword(userId)) || (await passkeys.has(userId)),
  });
  const flow = new SsoFlow({
    ...parts,
    providers,
    clients: new ProviderClients(providerFailed, config.sso.timeoutSeconds),
    attempts: new SsoAttempts(storage),
    identities,
    settings: {
      registration: config.sso.registration,
      defaultRoles: config.defaultRoles,
      callbackUrl: (id) => `${config.publicUrl}${config.urlPrefix}/sso/${id}/callback`,
    },
  });
  return { providers, identities, flow };
}
