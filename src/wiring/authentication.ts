/**
 * The third step of wiring.ts: who a request is and how someone signs in. The credential resolver
 * (session cookie or bearer token, read lazily), the rate limits that guard it and the sign-in
 * routes, second factors and passkeys, and the identity providers, which end in the same sign-in.
 */
import type { AuthParts } from '../wiring.js';
import { CredentialResolver } from '../authentication/credentials.js';
import { SignIn } from '../authentication/sign-in.js';
import { forgetCredentials } from '../authorization/request-state.js';
import { createLimiters } from '../limiters.js';
import type { LoginTickets } from '../mfa/login-tickets.js';
import { Passkeys } from '../mfa/passkeys.js';
import { SecondFactors } from '../mfa/second-factor.js';
import { SecretBox } from '../mfa/secret-box.js';
import type { SessionStore } from '../sessions/store.js';
import { createSso } from '../sso/parts.js';
import type { UserCreation } from '../users/creation.js';

export type Authentication = Pick<
  AuthParts,
  'limiters' | 'credentials' | 'secondFactors' | 'passkeys' | 'signIn' | 'sso'
>;

/** What the earlier steps made that only this one needs, besides what `parts` holds. */
export interface AuthenticationNeeds {
  publicOrigin: string;
  loginTickets: LoginTickets;
  creation: UserCreation;
}

/** Needs of `parts` what the credential stores and accounts steps made; impersonation is read when asked. */
export function wireAuthentication(parts: AuthParts, needs: AuthenticationNeeds): Authentication {
  const { config, storage, audit, pluggable, sessions } = parts;
  const { publicOrigin, loginTickets, creation } = needs;
  const limiters = createLimiters(config.rateLimit, parts.redis);
  const credentials = new CredentialResolver({
    cookie: parts.cookie,
    sessions,
    users: parts.users,
    verifier: parts.verifier,
    tokenFailures: limiters?.tokenFailures,
    publicOrigin,
    impersonation: { credentials: (req, session) => parts.impersonation.credentials(req, session) },
    whenReady: () => parts.whenReady(),
    forgotten: forgetCredentials,
  });
  const box = new SecretBox(config.secret);
  const endSessions = (tx: Parameters<SessionStore['endAllOf']>[0], userId: number) =>
    parts.sessions.endAllOf(tx, userId);
  const secondFactors = new SecondFactors({
    storage,
    audit,
    box,
    issuer: new URL(config.publicUrl).host,
    forget: (ids) => parts.users.forget(ids),
    endSessions,
  });
  const passkeys = new Passkeys({ storage, audit, publicUrl: config.publicUrl });
  const signInParts = {
    storage,
    secondFactors,
    passkeys,
    tickets: loginTickets,
    users: parts.users,
    audit,
    sessions,
  };
  const signIn = new SignIn({
    ...signInParts,
    cookie: parts.cookie,
    credentials,
    limits: limiters,
    publicOrigin,
    requireConfirmedEmail: config.emailConfirmation.enabled,
  });
  const sso = createSso(config, {
    storage,
    audit,
    signIn,
    tickets: loginTickets,
    users: parts.users,
    creation,
    passkeys,
    pluggable,
  });
  return { limiters, credentials, secondFactors, passkeys, signIn, sso };
}
