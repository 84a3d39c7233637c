/**
 * What the account endpoints do, whoever sent the request: the JSON API's router and the pages'
 * router both call these, and differ only in how they answer. The checks that come before
 * (rate limits, the same-site rule) are in `checks.ts`, shared the same way.
 */
import type { Request, Response } from 'express';
import { presentedToken } from '../../authentication/credentials.js';
import type { SignIn } from '../../authentication/sign-in.js';
import { AuthError, type SecondStepMethod } from '../../errors.js';
import type { EventBus, EventName } from '../../events.js';
import type { Passkeys } from '../../mfa/passkeys.js';
import type { AuthUser } from '../../users/auth-user.js';
import type { PasswordResets } from '../../users/password-resets.js';
import type { Registrations } from '../../users/registrations.js';
import type { UserService } from '../../users/service.js';
import type { AccountSchemas } from '../schemas/accounts.js';
import { parseBody } from '../schemas/parse.js';

export interface AccountActionDeps {
  /** The request bodies, one schema each. */
  schemas: AccountSchemas;
  /** SERVICE_AUTH_DEFAULT_ROLES (given to everyone who registers here) and SERVICE_AUTH_EMAIL_CONFIRMATION. */
  config: { readonly defaultRoles: readonly string[]; readonly emailConfirmation: { readonly enabled: boolean } };
  users: UserService;
  signIn: SignIn;
  resets: PasswordResets;
  registrations: Registrations;
  events: EventBus;
  passkeys: Passkeys;
}

export class AccountActions {
  constructor(private readonly deps: AccountActionDeps) {}

  /**
   * Creates the user, with the default roles, and signs them in. With SERVICE_AUTH_EMAIL_CONFIRMATION
   * on: null, the same for every address; the user, if the address is new, and the mail follow the
   * answer (users/registrations.ts), and nobody is signed in.
   */
  async register(req: Request, res: Response): Promise<AuthUser | null> {
    const { email, password } = parseBody(this.deps.schemas.register, req);
    const { config, registrations } = this.deps;
    if (config.emailConfirmation.enabled) {
      await registrations.register({ email, password, roles: config.defaultRoles });
      return null;
    }
    const user = await this.deps.users.create({ email, password, roles: config.defaultRoles }, 'user_registered');
    await this.deps.signIn.start(req, res, user);
    return this.announce('user_registered', user);
  }

  /** Confirms the address a confirmation link was mailed to. Event `email_confirmed`. */
  confirm(req: Request): Promise<AuthUser> {
    const { token } = parseBody(this.deps.schemas.confirm, req);
    return this.deps.registrations.confirm(token);
  }

  /** Mails a new confirmation link if the address has an unconfirmed account, after the answer. */
  resendConfirmation(req: Request): void {
    const { email } = parseBody(this.deps.schemas.resend, req);
    this.deps.registrations.resend(email);
  }

  /** Checks the password and signs the user in with a new session. */
  async login(req: Request, res: Response): Promise<AuthUser> {
    const { email, password } = parseBody(this.deps.schemas.login, req);
    const user = await this.deps.signIn.attempt(req, email, password);
    await this.deps.signIn.start(req, res, user, { type: 'login', email: user.email });
    return this.announce('user_login', user);
  }

  /**
   * The login's second step: the ticket and a code from the authenticator app, or a recovery
   * code; then a session, as a login. Event `user_login`.
   */
  async loginSecondStep(req: Request, res: Response): Promise<AuthUser> {
    const { ticket, code, recovery_code, passkey } = parseBody(this.deps.schemas.loginSecondStep, req);
    const { user, factor } = await this.deps.signIn.secondStep(req, ticket, {
      code,
      recoveryCode: recovery_code,
      passkey,
    });
    await this.deps.signIn.start(req, res, user, {
      type: 'login',
      email: user.email,
      detail: { second_factor: factor },
    });
    return this.announce('user_login', user);
  }

  /** What the second step of the ticket in the body may bring, to show the step again after a wrong code. */
  secondStepMethods(req: Request): Promise<SecondStepMethod[]> {
    return this.deps.signIn.ticketMethods(req.body?.ticket);
  }

  /** Options for one of the ticket's user's passkeys to answer, as the login's second step. */
  async secondStepPasskeyOptions(req: Request): Promise<unknown> {
    const { ticket } = parseBody(this.deps.schemas.secondStepOptions, req);
    return this.deps.passkeys.authenticationOptions(await this.deps.signIn.ticketUser(ticket));
  }

  /** Signs in with a passkey, without a password: the answer to `passkeyOptions`. Event `user_login`. */
  async loginWithPasskey(req: Request, res: Response): Promise<AuthUser> {
    const { response } = parseBody(this.deps.schemas.passkeyLogin, req);
    const { user, passkey } = await this.deps.signIn.passkeyUser(response);
    await this.deps.signIn.start(req, res, user, { type: 'login', email: user.email, detail: { passkey } });
    return this.announce('user_login', user);
  }

  /**
   * Ends the request's session, if any. A request with a bearer token is refused (400): the token
   * decides alone (credentials.ts) and is no session to end, and a 204 would let a program believe
   * its token gone while it stays valid.
   */
  async logout(req: Request, res: Response): Promise<void> {
    if (presentedToken(req) !== null) {
      throw new AuthError(
        'bad_request',
        'Logging out ends a session; an API token stays valid until revoked: DELETE ' +
          '/api/tokens/{id}, the tokens page, or `service-auth auth revoke-token`',
      );
    }
    const user = await this.deps.signIn.end(req, res);
    if (user) await this.deps.events.emit('user_logout', user);
  }

  /** Starts a reset for the address, if it has an account, after the response (see PasswordResets). */
  forgot(req: Request): void {
    const { email } = parseBody(this.deps.schemas.forgot, req);
    this.deps.resets.request(email);
  }

  async reset(req: Request): Promise<void> {
    const { token, password } = parseBody(this.deps.schemas.reset, req);
    await this.deps.resets.complete(token, password);
  }

  /**
   * Runs the event's handlers, then reads the user again: what the handlers changed (a role
   * given at registration, say) is in the response.
   */
  private async announce(event: EventName, user: AuthUser): Promise<AuthUser> {
    if ((await this.deps.events.emit(event, user)) === 0) return user;
    return (await this.deps.users.findById(user.id)) ?? user;
  }
}
