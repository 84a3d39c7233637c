/**
 * Every endpoint of the package, declared where its router is (api/*.ts, pages/*-routes.ts): the
 * OpenAPI document describes exactly these (openapi.ts), and the routes check that each is served
 * (routes.ts).
 */
import { abilitiesEndpoint } from './api/abilities.js';
import { TOKEN_ENDPOINTS } from './api/tokens.js';
import { INVITATION_ENDPOINTS } from './api/invitations.js';
import { MEMBER_ENDPOINTS } from './api/org-members.js';
import { ORG_ENDPOINTS } from './api/orgs.js';
import { invitationPage } from './pages/invitation-routes.js';
import { ORG_PAGES } from './pages/org-routes.js';
import type { Endpoint } from './endpoints/endpoint.js';
import { TOKEN_PAGES } from './pages/token-routes.js';

export const ENDPOINTS: readonly Endpoint[] = [
  ...TOKEN_PAGES,
  ...TOKEN_ENDPOINTS,
  abilitiesEndpoint,
  ...ORG_ENDPOINTS,
  ...MEMBER_ENDPOINTS,
  ...INVITATION_ENDPOINTS,
  ...ORG_PAGES,
  invitationPage,
];
