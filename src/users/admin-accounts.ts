/**
 * Admin accounts are protected from the operators below them, as they are from
 * impersonation: the `is_admin` flag passes every check, so an operator who does not hold it must
 * not be able to lock out, take the roles of, or weaken (its second factor) the accounts that do. Otherwise support staff who
 * may disable accounts (docs/admin.md) could disable every administrator, and an operator holding
 * the role `admin` could strip it from the `is_admin` account and keep the service to themselves.
 *
 * The rule is the users' service's, so every door that names its operator (the admin console's
 * forms, as a page or as problem+json) meets it. The CLI names none: whoever runs it holds the
 * database already.
 */
import { AuthError } from '../errors.js';

/** The signed-in person making a change to someone's account (`req.user`). */
export interface Operator {
  readonly id: number;
  readonly is_admin: boolean;
}

/** The changes an operator who is not `is_admin` may not make to an `is_admin` account. */
export type ProtectedChange =
  'disable' | 'remove a role from' | 'end the sessions of' | 'revoke the tokens of' | 'reset the second factor of';

/** Whether this operator may make a protected change to this account. */
export function mayChangeAdminAccount(operator: Operator | undefined, target: { readonly is_admin: boolean }): boolean {
  return !operator || operator.is_admin || !target.is_admin;
}

/** A 403 `forbidden` when an operator who is not `is_admin` would make a protected change to an `is_admin` account. */
export function protectAdminAccount(
  operator: Operator | undefined,
  target: { readonly is_admin: boolean },
  change: ProtectedChange,
): void {
  if (!mayChangeAdminAccount(operator, target)) {
    throw new AuthError(
      'forbidden',
      `Only an is_admin operator may ${change} an is_admin account, whatever the rules allow`,
    );
  }
}
