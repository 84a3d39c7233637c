/**
 * What a logged-in person does to their own account, whichever router (pages or JSON) took the
 * request: change the password or the address, delete the account. Each needs a session (not a
 * token) and the password again; a wrong one is 401 `invalid_credentials` and counts as a failed
 * login (SERVICE_AUTH_RATE_LIMIT_LOGIN_FAILURES).
 */
import type { Request, Response } from 'express';
import type { SignIn } from '../../authentication/sign-in.js';
import type { AuthUser } from '../../users/auth-user.js';
import type { EmailChanges } from '../../users/email-changes.js';
import type { UserService } from '../../users/service.js';
import type { AccountSchemas } from '../schemas/accounts.js';
import { parseBody } from '../schemas/parse.js';
import { assertSession } from './session-only.js';

export interface ProfileActionDeps {
  schemas: AccountSchemas;
  users: UserService;
  signIn: SignIn;
  emailChanges: EmailChanges;
  /** The password rules, checked before the current password costs a hash. */
  passwords: { assertRules(password: string): void };
}

export class ProfileActions {
  constructor(private readonly deps: ProfileActionDeps) {}

  /**
   * A new password: every other session ends, pending reset links die, tokens stay, and the
   * request gets a new session. Event `password_changed`.
   */
  async changePassword(req: Request, res: Response): Promise<AuthUser> {
    assertSession(req);
    const { current_password, password } = parseBody(this.deps.schemas.changePassword, req);
    this.deps.passwords.assertRules(password);
    await this.deps.signIn.confirmPassword(req, req.user!, current_password);
    const user = await this.deps.users.changePassword(req.user!.id, password);
    await this.deps.signIn.start(req, res, user);
    return (await this.deps.users.findById(user.id)) ?? user;
  }

  /** Asks the new address to confirm the change, and tells the old one (409 `email_taken`). */
  async requestEmailChange(req: Request): Promise<void> {
    assertSession(req);
    const { password, email } = parseBody(this.deps.schemas.changeEmail, req);
    await this.deps.signIn.confirmPassword(req, req.user!, password);
    await this.deps.emailChanges.request(req.user!, email);
  }

  /** Completes a change with the token mailed to the new address; no session needed. Event `email_changed`. */
  confirmEmailChange(req: Request): Promise<AuthUser> {
    const { token } = parseBody(this.deps.schemas.confirmEmail, req);
    return this.deps.emailChanges.confirm(token);
  }

  /** Deletes the account and everything of it, and clears the cookie. Event `user_deleted`. */
  async deleteAccount(req: Request, res: Response): Promise<void> {
    assertSession(req);
    const { password } = parseBody(this.deps.schemas.deleteAccount, req);
    await this.deps.signIn.confirmPassword(req, req.user!, password);
    await this.deps.users.delete(req.user!.id);
    await this.deps.signIn.end(req, res);
  }
}
