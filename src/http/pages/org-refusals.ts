/** The organization pages' refusals in their words, and what their redirects say was done. */
import type { Request } from 'express';
import type { AuthError } from '../../errors.js';
import type { FieldErrors } from './fields.js';
import type { Notice } from './layout.js';
import type { PageTexts } from './texts.js';

export interface OrgRefusal {
  errors: FieldErrors | null;
  notice: Notice | null;
}

/** The refusal of an organization form in the pages' words, or undefined when it deserves a page of its own. */
export function orgRefusal(error: AuthError, texts: PageTexts): OrgRefusal | undefined {
  const e = texts.orgErrors;
  const field = (name: string, message: string) => ({ errors: { [name]: { message } }, notice: null });
  const notice = (text: string) => ({ errors: null, notice: { kind: 'error' as const, text } });
  switch (error.code) {
    case 'bad_request': {
      if (!error.errors?.length) return undefined;
      const errors: FieldErrors = {};
      for (const item of error.errors) {
        if (!('field' in item)) continue;
        const known: Record<string, string> = {
          name: e.name,
          slug: e.slug,
          roles: e.roles,
          email: texts.errors.invalidEmail,
        };
        const message = item.message === 'is required' ? texts.errors.required : (known[item.field] ?? item.message);
        errors[item.field] = { message };
      }
      return { errors, notice: null };
    }
    case 'invalid_email':
      return field('email', texts.errors.invalidEmail);
    case 'slug_taken':
      return field('slug', e.slugTaken);
    case 'already_member':
      return field('email', e.alreadyMember);
    case 'unknown_role':
      return field('roles', e.unknownRole);
    case 'last_owner':
      return notice(e.lastOwner);
    case 'too_many_organizations':
      return notice(e.tooMany);
    case 'forbidden':
      return notice(e.notAllowed);
    case 'not_found':
      return notice(texts.problems.notFound.text);
    default:
      return undefined;
  }
}

/** Field problems of a form with no fields shown (the roles of a member's row), as one notice. */
export function noticeOf(errors: FieldErrors | null): Notice | null {
  const first = errors && Object.values(errors)[0];
  return first ? { kind: 'error', text: first.message } : null;
}

/** The roles a form ticked, as text. */
export function rolesSent(req: Request): string[] {
  const value: unknown = (req.body as Record<string, unknown> | undefined)?.['roles'];
  return (Array.isArray(value) ? value : [value]).filter((role): role is string => typeof role === 'string');
}

/** What the redirect that led to an organization's page says was done. */
export function orgNotice(req: Request, texts: PageTexts): Notice | null {
  const t = texts.org;
  const done: Record<string, string> = {
    roles: t.rolesChanged,
    removed: t.removed,
    invited: t.invited,
    revoked: t.revoked,
    joined: t.joined,
  };
  const key = req.query['done'];
  const text = typeof key === 'string' && Object.hasOwn(done, key) ? done[key] : undefined;
  return text ? { kind: 'info', text } : null;
}
