/**
 * Signing in and out with a password and the session cookie: the steps the login, register and
 * logout endpoints share, whether a page or an API client sent them.
 */
import type { Request, Response } from 'express';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/records.js';
import { AuthError, MfaRequired, type SecondStepMethod } from '../errors.js';
import type { LoginTickets } from '../mfa/login-tickets.js';
import type { Passkeys } from '../mfa/passkeys.js';
import { invalidCode, type SecondFactors } from '../mfa/second-factor.js';
import { clientKey } from '../rate-limit/client-key.js';
import type { Limiter } from '../rate-limit/limiter.js';
import { rateLimited } from '../rate-limit/middleware.js';
import type { SessionCookie } from '../sessions/cookie.js';
import { assertSameSite } from '../sessions/csrf.js';
import type { SessionStore } from '../sessions/store.js';
import type { Storage } from '../storage/storage.js';
import type { AuthUser } from '../users/auth-user.js';
import { normalizeEmail } from '../users/emails.js';
import type { UserService } from '../users/service.js';
import type { CredentialResolver } from './credentials.js';
import { countSecondStep, type SecondStepProof } from './second-step-counts.js';

export interface SignInDeps {
  storage: Storage;
  users: UserService;
  audit: AuditLog;
  sessions: SessionStore;
  cookie: SessionCookie;
  credentials: CredentialResolver;
  /**
   * Failed logins per (email, client) pair, and wrong authenticator codes per account; absent when
   * rate limiting is off.
   */
  limits: { loginFailures: Limiter; secondFactorFailures: Limiter } | undefined;
  publicOrigin: string;
  /** SERVICE_AUTH_EMAIL_CONFIRMATION: an unconfirmed address may not log in. */
  requireConfirmedEmail: boolean;
  secondFactors: SecondFactors;
  passkeys: Passkeys;
  tickets: LoginTickets;
}

export class SignIn {
  constructor(private readonly deps: SignInDeps) {}

  /**
   * The user with this email and password, or a 401 `invalid_credentials` (the same for an unknown
   * email). Attempts count per (account, client), before the password is checked, so that guesses
   * sent at once cannot all be checked; a successful login clears the pair. Guessing one account's
   * password from one place is stopped, while its owner elsewhere, and this client on other
   * accounts, carry on.
   *
   * Only the right password learns that the account is disabled (403 `account_disabled`) or its
   * address unconfirmed (403 `email_unconfirmed`): a wrong one is the same 401, after the same work.
   */
  async attempt(req: Request, email: string, password: string): Promise<AuthUser> {
    const user = await this.checkPassword(req, email, password);
    this.assertMayLogIn(user, email);
    // The right password of an account with a second factor earns a ticket, not a session; its
    // failures are not cleared until a code completes the login (else each login would clear the
    // wrong codes counted, and codes could be guessed without end).
    if (user.mfa_enabled)
      throw new MfaRequired(await this.deps.tickets.issue(user.id), await this.secondStepMethods(user.id));
    await this.clearFailures(req, email);
    return user;
  }

  /**
   * The login's second step: the ticket the password earned, and a code. A wrong code is 401
   * `invalid_code` and counts against the account's failure limit like a wrong password; the
   * fifth ends the ticket (401 `invalid_ticket` from then on, as for an unknown or expired one).
   * Returns the user and how they proved it, once the ticket and the code are used up.
   * Wrong codes count as second-step-counts.ts says.
   */
  async secondStep(
    req: Request,
    ticket: string,
    proof: SecondStepProof,
  ): Promise<{ user: AuthUser; factor: 'totp' | 'recovery_code' | 'passkey' }> {
    const { storage, tickets, secondFactors, passkeys, limits, audit } = this.deps;
    const user = await this.ticketUser(ticket);
    const counts = await countSecondStep(limits, `${normalizeEmail(user.email)}|${clientKey(req)}`, user, proof);
    // One of the ticket's five tries is taken before the code is checked (see LoginTickets.claim);
    // a request a limit refused took none.
    if (!(await tickets.claim(ticket))) {
      await counts.giveBack();
      throw this.invalidTicket(user.id);
    }
    // A passkey's answer is checked first (against a challenge of this user's second step).
    const passkeyOk =
      proof.passkey !== undefined &&
      (await passkeys.authenticate(proof.passkey, user.id).catch(unlessUnverified)) !== null;
    const em = await storage.em();
    const factor = await storage.transaction(em, async (tx) => {
      const used =
        proof.passkey !== undefined
          ? passkeyOk
            ? ('passkey' as const)
            : null
          : await secondFactors.use(tx, user.id, proof);
      if (used && !(await tickets.consume(tx, ticket))) return null; // another request took the ticket
      return used;
    });
    if (!factor) {
      await tickets.fail(ticket);
      audit.fail({
        type: 'login',
        userId: user.id,
        email: user.email,
        reason: 'invalid_code',
        detail: { step: 'second_factor' },
      });
      throw invalidCode();
    }
    // Whatever the factor, a login clears the failures before it (NIST: previous failed attempts are disregarded).
    await counts.clear();
    this.assertMayLogIn(user, user.email);
    return { user, factor };
  }

  /** What the second step may bring for this user: always a code or a recovery code; a passkey if they have one. */
  async secondStepMethods(userId: number): Promise<SecondStepMethod[]> {
    return ['totp', 'recovery_code', ...((await this.deps.passkeys.has(userId)) ? (['passkey'] as const) : [])];
  }

  /** The same for a live ticket's user, to show its step again (a code only, if the ticket is no longer good). */
  async ticketMethods(ticket: unknown): Promise<SecondStepMethod[]> {
    const userId = await this.deps.tickets.userOf(ticket);
    return userId === null ? ['totp', 'recovery_code'] : this.secondStepMethods(userId);
  }

  /** The user a live login ticket was issued to; 401 `invalid_ticket` if none. */
  async ticketUser(ticket: string): Promise<AuthUser> {
    const userId = await this.deps.tickets.userOf(ticket);
    const user = userId === null ? null : await this.deps.users.findById(userId);
    if (!user) throw this.invalidTicket(userId);
    return user;
  }

  private invalidTicket(userId: number | null): AuthError {
    this.deps.audit.fail({ type: 'login', userId, reason: 'invalid_ticket', detail: { step: 'second_factor' } });
    return new AuthError('invalid_ticket', 'This login has expired or ended; log in again with your password');
  }

  /**
   * The user whose passkey answered a sign-in challenge (a passkey is both factors: the device,
   * and the PIN or fingerprint that unlocks it), if they may log in: disabled or unconfirmed
   * accounts are refused as after a right password. 400 `invalid_passkey`, recorded as a failed
   * login, if the answer does not verify.
   */
  async passkeyUser(response: unknown): Promise<{ user: AuthUser; passkey: string }> {
    const signed = await this.deps.passkeys.authenticate(response).catch(unlessUnverified);
    const user = signed && (await this.deps.users.findById(signed.userId));
    if (!signed || !user) {
      this.deps.audit.fail({
        type: 'login',
        userId: signed?.userId ?? null,
        reason: 'invalid_passkey',
        detail: { step: 'passkey' },
      });
      throw new AuthError('invalid_passkey', 'The passkey could not be verified; try again');
    }
    this.assertMayLogIn(user, user.email);
    return { user, passkey: signed.passkey };
  }

  private async clearFailures(req: Request, email: string): Promise<void> {
    await this.deps.limits?.loginFailures.reset(`${normalizeEmail(email)}|${clientKey(req)}`);
  }

  /** Only the right password learns that the account is disabled or its address unconfirmed. */
  assertMayLogIn(user: AuthUser, email: string): void {
    const refuse = (reason: string) => this.deps.audit.fail({ type: 'login', userId: user.id, email, reason });
    if (user.disabled) {
      refuse('account_disabled');
      throw new AuthError('account_disabled', 'This account is disabled');
    }
    if (this.deps.requireConfirmedEmail && !user.email_confirmed) {
      refuse('email_unconfirmed');
      throw new AuthError(
        'email_unconfirmed',
        'Confirm your email address first: open the link mailed to it, or ask for a new one',
      );
    }
  }

  /**
   * The logged-in user's password again, before a change that needs it (a new password or address,
   * deleting the account): a wrong one is 401 `invalid_credentials` and counts as a failed login.
   */
  async confirmPassword(req: Request, user: AuthUser, password: string): Promise<void> {
    await this.checkPassword(req, user.email, password);
    await this.clearFailures(req, user.email);
  }

  private async checkPassword(req: Request, email: string, password: string): Promise<AuthUser> {
    const { users, limits } = this.deps;
    const pair = `${normalizeEmail(email)}|${clientKey(req)}`;
    if (limits) {
      const state = await limits.loginFailures.consume(pair);
      if (!state.allowed) throw rateLimited(state, 'failed logins for this account from this address');
    }
    const { user, triedOn } = await users.check(email, password);
    if (!user) {
      // Unknown addresses too: a run of them from one place is what an enumeration looks like.
      this.deps.audit.fail({ type: 'login', userId: triedOn, email, reason: 'invalid_credentials' });
      throw new AuthError('invalid_credentials', 'The email or password is not right');
    }
    return user;
  }

  /**
   * A new session for `user`, replacing any the request carried (no session fixation); `record`
   * (a login) is written with it.
   */
  async start(req: Request, res: Response, user: AuthUser, record?: AuditEntry): Promise<void> {
    const { sessions, cookie, credentials } = this.deps;
    const previous = cookie.read(req);
    if (previous) await sessions.destroy(previous);
    const session = await sessions.create(user.id, req.headers['user-agent'], record);
    cookie.set(res, session.id, session.expiresAt);
    credentials.forget(req);
  }

  /** Ends the request's session, if it has one; returns its user. Clears the cookie either way. */
  async end(req: Request, res: Response): Promise<AuthUser | null> {
    const { sessions, cookie, credentials, users, publicOrigin } = this.deps;
    const sessionId = cookie.read(req);
    const session = sessionId ? await sessions.find(sessionId) : null;
    let user: AuthUser | null = null;
    if (sessionId && session) {
      // Logging out is a cookie-authenticated state change: another site may not force it.
      assertSameSite(req, publicOrigin);
      user = await users.findById(session.userId);
      await sessions.destroy(sessionId, { type: 'logout', email: user?.email });
    }
    cookie.clear(res);
    credentials.forget(req);
    return user;
  }
}

/** A passkey's answer that did not verify is null; anything else (the database gone, say) goes on up. */
function unlessUnverified(error: unknown): null {
  if (error instanceof AuthError && error.code === 'invalid_passkey') return null;
  throw error;
}
