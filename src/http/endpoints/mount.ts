/**
 * Endpoints on a router: each declaration's guards, in order, then its handler. The router is
 * Express's own; every endpoint mounted is remembered, so that the routes can check that each
 * declaration the document describes is served (endpoint-table.ts).
 */
import { Router, type RequestHandler } from 'express';
import { browserFormsOnly } from '../requests/negotiation.js';
import type { Endpoint } from './endpoint.js';
import type { GuardKit } from './guard-kit.js';

const mounted = new WeakSet<Endpoint>();

export interface FormOptions {
  /**
   * The form the page was sent from (`formRoute` of pages/forms.ts): before the guards, so that
   * their refusals show it again.
   */
  form?: RequestHandler;
  /** A browser's form only, before anything else: the pages' variant of a JSON endpoint. */
  browserFormsOnly?: boolean;
}

export class EndpointRouter {
  readonly router: Router = Router();

  constructor(private readonly kit: GuardKit) {}

  /** The endpoint, answered by `handler` (or a chain of the route's own) after its guards. */
  on(endpoint: Endpoint, handler: RequestHandler | readonly RequestHandler[], options: FormOptions = {}): this {
    const chain: RequestHandler[] = [];
    if (endpoint.formsOnly || options.browserFormsOnly) chain.push(browserFormsOnly);
    if (options.form) chain.push(options.form);
    for (const guard of endpoint.guards) chain.push(...guard.use(this.kit));
    this.router[endpoint.method](endpoint.path, ...chain, ...[handler].flat());
    mounted.add(endpoint);
    return this;
  }

  /** A page's form posting to a JSON endpoint's path: the same declaration, for a browser's form only. */
  form(endpoint: Endpoint, form: RequestHandler, handler: RequestHandler): this {
    return this.on(endpoint, handler, { form, browserFormsOnly: true });
  }
}

/** The declarations no router has mounted. */
export function unmounted(table: readonly Endpoint[]): Endpoint[] {
  return table.filter((endpoint) => !mounted.has(endpoint));
}
