/**
 * The admin console's pictures for docs/admin.md, taken by `npm run screenshots` from the same
 * demo, at a desktop's width (its tables are wide): an operator (the demo's `admin` role, `manage
 * all`) opens the console, searches the users, gives Ada a role, reads the audit log, asks the policy explorer why,
 * and opens an organization.
 */
import type { Browser, Page } from 'playwright-core';
import { PASSWORD } from '../test/helpers/app.js';
import type { DemoServer } from '../test/browser/demo-server.js';

export async function shootAdminConsole(
  browser: Browser,
  demo: DemoServer,
  shoot: (page: Page, name: string) => Promise<void>,
): Promise<void> {
  await demo.operator.auth.users.create({ email: 'root@example.com', password: PASSWORD, roles: ['admin'] });
  const page = await (
    await browser.newContext({ viewport: { width: 1100, height: 700 }, baseURL: demo.url })
  ).newPage();
  await page.goto('/service-auth/login?next=%2Fservice-auth%2Forgs');
  await page.getByLabel('Email').fill('root@example.com');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/service-auth/orgs');
  await page.getByLabel('Name').fill('Rocket Club');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.waitForURL('**/service-auth/orgs/rocket-club');

  await page.goto('/service-auth/admin');
  await shoot(page, 'admin-home');

  await page.goto('/service-auth/admin/users?email=example.com');
  await shoot(page, 'admin-users');

  await page.getByRole('link', { name: 'ada@example.com' }).first().click();
  await page.getByLabel('Role').selectOption('analyst');
  await page.getByRole('button', { name: 'Give the role' }).click();
  await page.getByRole('status').waitFor();
  await shoot(page, 'admin-user');

  await page.goto('/service-auth/admin/orgs');
  await shoot(page, 'admin-orgs');

  await page.goto('/service-auth/admin/orgs/rocket-club');
  await shoot(page, 'admin-org');

  await page.goto('/service-auth/admin/audit?type=role_added');
  await page.getByRole('button', { name: 'Verify the chain' }).click();
  await page.getByRole('status').waitFor();
  await shoot(page, 'admin-audit');

  await page.goto('/service-auth/admin/policy');
  await page.getByLabel('User (email)').fill('ada@example.com');
  await page.getByLabel('Action').fill('update');
  await page.getByLabel('Subject type').fill('Note');
  await page.getByLabel('Field values (optional)').fill('owner_id:=42\ntitle=Plans');
  await page.getByRole('button', { name: 'Explain' }).click();
  await page.locator('section.notice').waitFor();
  await shoot(page, 'admin-policy');
}
