/**
 * The pages' forms, as the one error middleware sees them. A route that a form posts to (or that
 * serves a page showing that form) says so first (`formRoute`): which page the form is on, and
 * how to show it again. When the route then refuses a person (a guard, a limiter, the service),
 * the error middleware shows the form again with the problem beside its field, or above it, if
 * the problem is the form's; otherwise a page of its own, with a link back to the form's page.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AuthError } from '../../errors.js';
import type { FormRefusal } from './refusals.js';

export interface FormRoute {
  /** The path of the page the form is on, with what its URL carried (`next`, the reset token). */
  page(req: Request): string;
  /** The form's fields: a refusal naming none of them is not the form's to show. */
  fields: readonly string[];
  /**
   * Shows the form again, with the refusal in the form's words, the same status and what was
   * typed (never a password). Returns false if this refusal deserves a page of its own instead.
   */
  showAgain(req: Request, res: Response, error: AuthError, refusal: FormRefusal | undefined): Promise<boolean>;
}

const routes = new WeakMap<Request, FormRoute>();

/** Placed first on a route that a page's form posts to, or that shows such a page. */
export function formRoute(route: FormRoute): RequestHandler {
  return (req, _res, next) => {
    routes.set(req, route);
    next();
  };
}

/** The form the request was sent from, if its route said so. */
export function formRouteOf(req: Request): FormRoute | undefined {
  return routes.get(req);
}

/** Whether a refusal's field errors concern this form at all. */
export function concernsForm(route: FormRoute, refusal: FormRefusal | undefined): boolean {
  if (!refusal) return false;
  if (!refusal.errors) return true;
  return Object.keys(refusal.errors).some((field) => route.fields.includes(field));
}
