/**
 * Sign-in through an identity provider, from its start to the provider's answer, whoever asked
 * (the routes in http/ answer it). An identity (provider, subject) signs in the user it is linked
 * to. It is never joined to an account by address alone: a provider that says an address is its
 * person's, truthfully or not, would otherwise sign in as whoever holds that address here. The
 * holder links it themselves, signed in, from the account page; only an address no account has
 * may make a new account (SERVICE_AUTH_SSO_REGISTRATION), and only if the provider verified it.
 */
import type { AuditLog } from '../audit/audit-log.js';
import type { SignIn } from '../authentication/sign-in.js';
import { AuthError, MfaRequired, SsoFailed } from '../errors.js';
import type { LoginTickets } from '../mfa/login-tickets.js';
import { constantTimeEqual } from '../secrets.js';
import type { AuthUser } from '../users/auth-user.js';
import { normalizeEmail } from '../users/emails.js';
import type { SsoAttempts } from './attempts.js';
import type { ProviderAnswer, ProviderClients } from './client.js';
import type { Identities } from './identities.js';
import type { IdentityProvider, IdentityProviders } from './providers.js';

export interface SsoFlowDeps {
  providers: IdentityProviders;
  clients: ProviderClients;
  attempts: SsoAttempts;
  identities: Identities;
  users: { findById(id: number): Promise<AuthUser | null> };
  /** Accounts made through a provider, without a password. */
  creation: {
    isTaken(email: string): Promise<boolean>;
    createWithoutPassword(input: { email: string; roles: Iterable<string> }): Promise<AuthUser>;
  };
  signIn: SignIn;
  tickets: LoginTickets;
  audit: AuditLog;
  settings: { registration: boolean; defaultRoles: readonly string[]; callbackUrl(providerId: string): string };
}

/** How a provider's answer ended, short of a refusal. */
export type SsoOutcome =
  | { kind: 'signed_in'; user: AuthUser; provider: string; registered: boolean; next: string | null }
  | { kind: 'second_factor'; step: MfaRequired; next: string | null }
  | { kind: 'linked'; user: AuthUser; provider: string; next: string | null };

/** `amr` values (RFC 8176) that say a second factor was used. */
const SECOND_FACTORS = new Set(['mfa', 'otp', 'hwk', 'swk', 'sms', 'sc', 'fpt', 'face', 'iris', 'retina', 'vbm']);

export class SsoFlow {
  constructor(private readonly deps: SsoFlowDeps) {}

  /** The provider, or 404 `not_found`. */
  provider(id: string): IdentityProvider {
    const provider = this.deps.providers.get(id);
    if (!provider) throw new AuthError('not_found', 'There is no identity provider with this id');
    return provider;
  }

  /** Where to send the browser, and the attempt's id for its cookie. */
  async start(
    providerId: string,
    options: { next: string | null; linkUserId: number | null },
  ): Promise<{ url: string; attemptId: string }> {
    const provider = this.provider(providerId);
    const { url, checks } = await this.deps.clients.begin(provider, this.deps.settings.callbackUrl(provider.id));
    const attemptId = await this.deps.attempts.begin({ provider: provider.id, ...checks, ...options });
    return { url: url.href, attemptId };
  }

  /**
   * The provider's answer at `callbackUrl`, for the attempt the browser's cookie names; `current`
   * is the user signed in on this browser, if any (a link needs the one who started it).
   */
  async finish(
    providerId: string,
    attemptId: unknown,
    callbackUrl: URL,
    current: AuthUser | null,
  ): Promise<SsoOutcome> {
    const provider = this.provider(providerId);
    try {
      const attempt = await this.deps.attempts.take(attemptId);
      const state = callbackUrl.searchParams.get('state') ?? '';
      if (!attempt || attempt.provider !== provider.id || !constantTimeEqual(state, attempt.state)) {
        throw new SsoFailed(
          'state',
          'This sign-in was not started in this browser, was used already, or expired: start again',
        );
      }
      const answer = await this.deps.clients.finish(provider, callbackUrl, attempt);
      if (attempt.linkUserId !== null) {
        if (current?.id !== attempt.linkUserId)
          throw new SsoFailed('state', 'The account that started linking is no longer signed in here');
        await this.deps.identities.link(current.id, {
          provider: provider.id,
          subject: answer.profile.subject,
          email: answer.profile.email,
        });
        return { kind: 'linked', user: current, provider: provider.id, next: attempt.next };
      }
      const { user, registered } = await this.account(provider, answer);
      const providerDidMfa = provider.trustProviderMfa && answer.amr.some((method) => SECOND_FACTORS.has(method));
      this.deps.signIn.assertMayLogIn(user, user.email);
      if (user.mfa_enabled && !providerDidMfa) {
        const step = new MfaRequired(
          await this.deps.tickets.issue(user.id),
          await this.deps.signIn.secondStepMethods(user.id),
        );
        return { kind: 'second_factor', step, next: attempt.next };
      }
      return { kind: 'signed_in', user, provider: provider.id, registered, next: attempt.next };
    } catch (error) {
      if (error instanceof SsoFailed) {
        this.deps.audit.fail({
          type: 'login',
          userId: current?.id ?? null,
          reason: 'sso_failed',
          detail: { provider: provider.id, sso_reason: error.reason },
        });
      }
      throw error;
    }
  }

  /** The linked user; or a new one, if registration is on and the address verified and free. */
  private async account(
    provider: IdentityProvider,
    { profile }: ProviderAnswer,
  ): Promise<{ user: AuthUser; registered: boolean }> {
    const { identities, users, creation, settings } = this.deps;
    const linked = await identities.userOf(provider.id, profile.subject);
    const user = linked === null ? null : await users.findById(linked);
    if (user) return { user, registered: false };
    const notLinked = new SsoFailed(
      'not_linked',
      'No account is linked to this identity: sign in to your account, then link it from the account page',
    );
    if (!settings.registration) throw notLinked;
    if (!profile.email || !profile.emailVerified)
      throw new SsoFailed(
        'email_unverified',
        'The provider has not verified your email address, so no account can be made with it',
      );
    // An account with this address exists: the person must prove they hold it before linking.
    if (await creation.isTaken(normalizeEmail(profile.email))) throw notLinked;
    let created: AuthUser;
    try {
      created = await creation.createWithoutPassword({ email: profile.email, roles: settings.defaultRoles });
    } catch (error) {
      if (error instanceof AuthError && error.code === 'email_taken') throw notLinked;
      if (error instanceof AuthError && error.code === 'invalid_email')
        throw new SsoFailed('email_unverified', 'The provider gave an address that cannot be used');
      throw error;
    }
    await identities.link(created.id, { provider: provider.id, subject: profile.subject, email: profile.email });
    return { user: created, registered: true };
  }
}
