/** An organizations' JSON endpoint: tagged, its description ending with how failed tokens are counted. */
import type { DocumentContext } from '../openapi/operations.js';
import { noStore } from '../openapi/operations.js';
import { redirect, type Response } from '../openapi/responses.js';
import { described, endpoint, type Endpoint, type EndpointSpec } from '../endpoints/endpoint.js';
import { tokenFailuresNote } from '../endpoints/guards.js';

export function orgEndpoint(spec: Omit<EndpointSpec, 'tags'>): Endpoint {
  const text = spec.description ?? '';
  const description = (context: DocumentContext): string =>
    described(text, context) + tokenFailuresNote(context.config);
  return endpoint({ ...spec, description, tags: ['organizations'] });
}

/** A browser's form, answered with a redirect to the organization's page. */
export function toOrgPage(what: string): Response {
  return redirect(`A browser’s form: ${what}, to the organization’s page`, noStore());
}
