/**
 * Every endpoint of the package, declared where its router is (api/*.ts, pages/*-routes.ts): the
 * OpenAPI document describes exactly these (openapi.ts), and the routes check that each is served
 * (routes.ts).
 */
import { abilitiesEndpoint } from './api/abilities.js';
import { TOKEN_ENDPOINTS } from './api/tokens.js';
import type { Endpoint } from './endpoints/endpoint.js';
import { TOKEN_PAGES } from './pages/token-routes.js';

export const ENDPOINTS: readonly Endpoint[] = [...TOKEN_PAGES, ...TOKEN_ENDPOINTS, abilitiesEndpoint];
