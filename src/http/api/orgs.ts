/**
 * `/api/orgs` and `/api/invitations/accept` for API clients (mounted at `/api`): organizations,
 * their members and invitations. Every `{org}` route is behind `orgRequired` (a non-member's 404,
 * `req.ability` in that organization); what each may do is actions/orgs.ts's to check.
 */
import { Router, type RequestHandler } from 'express';
import { idParameter, type OrgActions } from '../actions/orgs.js';
import { orgSchemas } from '../schemas/orgs.js';
import { parseBody } from '../schemas/parse.js';

export interface OrgsApiDeps {
  orgs: OrgActions;
  loginRequired: RequestHandler;
  /** `loginRequired`, with `req.ability` ready (the user's attributes loaded): where the ability is asked outside an organization. */
  abilityReady: RequestHandler;
  /** `orgRequired('org')`. */
  orgRequired: RequestHandler;
  /** Creating an organization: SERVICE_AUTH_RATE_LIMIT_ORGS per user (none when limits are off). */
  createLimit: RequestHandler[];
  /** Inviting mails someone: at the rate of other mails asked for (none when limits are off). */
  inviteLimit: RequestHandler[];
  /** Accepting uses a link: at the rate of confirmations (none when limits are off). */
  acceptLimit: RequestHandler[];
}

export function orgsApi({ orgs, loginRequired, abilityReady, orgRequired, createLimit, inviteLimit, acceptLimit }: OrgsApiDeps): Router {
  const api = Router();
  // Scopes first: a token with scopes learns nothing, not even which organizations exist.
  const inOrg: RequestHandler[] = [loginRequired, orgs.everyScope, orgRequired];

  api.post('/orgs', abilityReady, orgs.everyScope, ...createLimit, async (req, res) => {
    res.status(201).json({ org: await orgs.create(req, parseBody(orgSchemas.create, req)) });
  });
  api.get('/orgs', loginRequired, orgs.everyScope, async (req, res) => {
    res.json({ orgs: await orgs.mine(req) });
  });

  api.get('/orgs/:org', ...inOrg, (req, res) => {
    res.json({ org: orgs.show(req) });
  });
  api.patch('/orgs/:org', ...inOrg, async (req, res) => {
    res.json({ org: await orgs.rename(req, parseBody(orgSchemas.rename, req).name) });
  });
  api.delete('/orgs/:org', ...inOrg, async (req, res) => {
    await orgs.remove(req);
    res.status(204).end();
  });

  api.get('/orgs/:org/members', ...inOrg, async (req, res) => {
    res.json({ members: await orgs.members(req) });
  });
  api.patch('/orgs/:org/members/:user_id', ...inOrg, async (req, res) => {
    const userId = idParameter(req, 'user_id', 'member of this organization');
    res.json({ member: await orgs.setRoles(req, userId, parseBody(orgSchemas.memberRoles, req).roles) });
  });
  api.delete('/orgs/:org/members/:user_id', ...inOrg, async (req, res) => {
    await orgs.removeMember(req, idParameter(req, 'user_id', 'member of this organization'));
    res.status(204).end();
  });

  api.post('/orgs/:org/invitations', ...inOrg, ...inviteLimit, async (req, res) => {
    res.status(201).json({ invitation: await orgs.invite(req, parseBody(orgSchemas.invite, req)) });
  });
  api.get('/orgs/:org/invitations', ...inOrg, async (req, res) => {
    res.json({ invitations: await orgs.invitations(req) });
  });
  api.delete('/orgs/:org/invitations/:id', ...inOrg, async (req, res) => {
    await orgs.revoke(req, idParameter(req, 'id', 'invitation pending in this organization'));
    res.status(204).end();
  });

  api.post('/invitations/accept', loginRequired, orgs.everyScope, ...acceptLimit, async (req, res) => {
    res.json(await orgs.accept(req, parseBody(orgSchemas.accept, req).token));
  });

  return api;
}

