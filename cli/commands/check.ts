import { Command, Option } from 'clipanion';
import { routeContext } from '../../src/authorization/context.js';
import type { Asked } from '../../src/authorization/asker.js';
import type { Asking } from '../../src/authorization/asking.js';
import type { ExplainDeps } from '../../src/authorization/explain.js';
import type { Principal } from '../../src/authorization/principal.js';
import type { AuthParts } from '../../src/wiring.js';
import { ServiceAuthCommand } from './base.js';
import { decidedBy, lackingLines, whyNotLines } from './explanations.js';
import { CliFailure, EXIT_USAGE } from './failures.js';
import { exclusive, needs, required, requiredUnless } from './option-rules.js';
import { applicationRules, DEFAULT_POLICIES, directoryRules } from './policy-rules.js';

/** Exit status of `auth check` when the answer is "denied" (0 is "allowed"). */
export const EXIT_DENIED = 3;

export class CheckCommand extends ServiceAuthCommand {
  static override paths = [['auth', 'check']];

  static override usage = Command.Usage({
    category: 'Policies',
    description: 'Ask whether a user may do something, and why',
    details: `
      Prints \`allowed\` or \`denied\`, then the rule that decided, with its role and the file it came from,
      or that no rule of the user's roles grants it. For a refusal, it then names each rule that could have allowed
      it and why it did not: the first of its conditions the subject fails (field, operator, the value wanted and
      the subject's), or the inverted rule that refused. The user is found by email; the rules are the
      application's (\`--app\`) or, without it, the JSON role files of \`--policies\` (default \`./policies\`).

      \`--field key=value\` gives the subject's fields (or a policy's context), repeated for several; values
      are read as URL parameters are: a canonical integer becomes a number. \`--field key:=JSON\` gives a typed
      value (\`shared:=true\`, \`team:=null\`, \`tags:='["a"]'\`), so a boolean or null column can be asked about.
      A named policy (\`--policy\`) is code, so it needs \`--app\`.

      \`--attribute key=value\` (or \`key:=JSON\`) gives a value of the application's user attributes, which
      rules name as \`\${user.team}\`; repeated for several. Without it, the application's resolver gives them with
      \`--app\`, and without \`--app\` the user has none (rules naming them deny).

      \`--org\` (an organization's slug or id) asks in that organization: with the user's global roles and the
      organization roles their membership there holds (global roles only for a non-member), the subject belonging
      to it unless \`--field\` names its tenant field (\`org_id\`) itself, or its type has none (\`User\`,
      \`Role\`, \`AuditRecord\`, \`Policy\`: organization roles reach none of them).

      An action or subject type that no rule of any role names is a usage error naming the closest known one
      (a typo would otherwise be "denied").

      A refusal also lists the rules of the user's roles for the question that were left out because they name
      an attribute the user has no value for, and how to give it.

      Exit status: 0 allowed, 3 denied, 1 failure (an unknown email or policy), 2 usage. \`--json\` prints \`{
      email, allowed, rule, policy?, why_not?, lacking_attributes? }\`.
    `,
    examples: [
      [
        "May ann read team north's reports?",
        '$0 auth check --email ann@example.com --action read --subject Report --field team=north',
      ],
      [
        'Through the application, as JSON',
        '$0 auth check --email ann@example.com --action read --subject Report --field team=south --app dist/app.js --json',
      ],
      [
        'A named policy',
        '$0 auth check --email ann@example.com --policy is_self_or_admin --field user_id=7 --app dist/app.js',
      ],
      ['In an organization', '$0 auth check --email ann@example.com --action create --subject Task --org acme'],
    ],
  });

  static override schema = [
    required('email', '--email'),
    requiredUnless('action', '--action', 'policy', '--policy'),
    requiredUnless('subject', '--subject', 'policy', '--policy'),
    exclusive({ policy: '--policy', action: '--action' }),
    exclusive({ policy: '--policy', subject: '--subject' }),
    exclusive({ policy: '--policy', org: '--org' }),
    exclusive({ app: '--app', policies: '--policies' }),
    needs('policy', '--policy', 'app', '--app', 'a named policy is code, which only the application has'),
  ];

  email = Option.String('--email', { description: "The user's email" });
  action = Option.String('--action', { description: 'The action, e.g. read' });
  subject = Option.String('--subject', { description: 'The subject type, e.g. Report' });
  policy = Option.String('--policy', { description: 'A named policy instead of an action on a subject (needs --app)' });
  fields = Option.Array('--field', {
    description:
      "A field of the subject (or the policy's context) as key=value, or key:=JSON for a typed value; repeat for several",
  });
  attributes = Option.Array('--attribute', {
    description:
      "A value of the application's user attributes (${user.team}) as key=value or key:=JSON; " +
      "repeat for several (with --app, the application's resolver gives them otherwise)",
  });
  org = Option.String('--org', {
    description: "Ask in this organization (its slug or id), with the user's organization roles there",
  });
  policies = Option.String('--policies', {
    description: `The directory of JSON role files, without --app (default ./${DEFAULT_POLICIES})`,
  });
  json = Option.Boolean('--json', false, { description: 'Print the explanation as JSON' });

  protected override async run(): Promise<number> {
    const context = this.pairs('--field', this.fields);
    const given = this.attributes && this.pairs('--attribute', this.attributes);
    const malformed = [context, given].find((read) => read instanceof CliFailure);
    if (malformed || context instanceof CliFailure || given instanceof CliFailure) {
      this.context.stderr.write(`${(malformed as CliFailure).message}\n`);
      return EXIT_USAGE;
    }
    const parts = await this.auth();
    const rules = this.app
      ? applicationRules(parts)
      : await directoryRules(this.policies ?? DEFAULT_POLICIES, parts.pluggable, parts.config.tenantField);
    const { explain } = await import('../../src/authorization/explain.js');
    const asker = await this.existingUser(parts, this.email!);
    // The names the rules asked with declare: the application's, or the policy files' (`"userAttributes"`).
    const user = await this.withAttributes(parts, rules.abilities, asker, given, false, rules.roles.attributes.names);
    if (this.policy !== undefined && !rules.policies.has(this.policy))
      throw new CliFailure(`Unknown policy: the application defines no policy named ${JSON.stringify(this.policy)}`);
    // Who asks, in the organization of `--org` if given, resolved as the package resolves any question.
    const { asking, asked } = await this.asked(parts, rules, user);
    const { org, roles, user: attributed, ability } = asked;
    const question = asking.subjectOf(asked, this.subject ?? '', context);
    let explanation: ReturnType<typeof explain>;
    try {
      explanation =
        this.policy !== undefined
          ? explain(rules, attributed, 'satisfy', this.policy, context)
          : explain(rules, attributed, this.action!, this.subject!, question, undefined, ability);
    } catch (error) {
      // An action or subject type no rule names: a typo on the command line.
      if (error instanceof TypeError)
        throw new CliFailure(`Usage Error: ${error.message.replace(/^explain: /, '')}`, EXIT_USAGE);
      throw error;
    }
    const { rulesLackingAttributes } = await import('./lacking-attributes.js');
    const lacking =
      explanation.allowed || this.policy !== undefined
        ? []
        : rulesLackingAttributes(rules.abilities.definitions(), attributed, roles, this.action!, this.subject!);
    if (this.json) {
      const lackingAttributes = lacking.map(({ rule, ...where }) => ({
        ...where,
        action: rule.action,
        subject: rule.subject,
      }));
      const answer = { email: user.email, ...(org && { org: org.slug }), ...explanation };
      this.print(
        JSON.stringify({ ...answer, ...(lacking.length > 0 && { lacking_attributes: lackingAttributes }) }, null, 2),
      );
    } else {
      this.print(explanation.allowed ? 'allowed' : 'denied');
      this.print(decidedBy(explanation, [...user.roles, ...roles]));
      for (const line of whyNotLines(explanation)) this.print(line);
      for (const line of lackingLines(lacking, given ? 'given' : this.app ? 'resolver' : 'none')) this.print(line);
    }
    return explanation.allowed ? 0 : EXIT_DENIED;
  }

  /**
   * The user with their attribute values when their roles name any (or `always`): those of
   * `--attribute`, else the application's resolver's (`--app`), else none.
   */
  private async withAttributes(
    parts: AuthParts,
    abilities: ExplainDeps['abilities'],
    user: Principal,
    given: Record<string, unknown> | undefined,
    always = false,
    declaredNames: ReadonlySet<string> = parts.userAttributes.names,
  ): Promise<Principal> {
    const { checkAttributeValues, withAttributes } = await import('../../src/authorization/principal.js');
    if (given) {
      const { undeclaredAttributes } = await import('./lacking-attributes.js');
      const undeclared = undeclaredAttributes(given, declaredNames);
      if (undeclared) throw new CliFailure(`Usage Error: ${undeclared}`, EXIT_USAGE);
      try {
        return withAttributes(user, checkAttributeValues(given, '--attribute'));
      } catch (error) {
        throw new CliFailure(`Usage Error: ${(error as Error).message}`, EXIT_USAGE);
      }
    }
    if (!always && !abilities.needsAttributes(user)) return user;
    return this.app ? parts.userAttributes.load(user) : withAttributes(user, {});
  }

  /**
   * The user asking with the rules given, everywhere or in the organization of `--org` (the user's
   * roles there, their attribute values loaded if those roles name any), by the package's own
   * resolution of who asks (src/authorization/asking.ts).
   */
  private async asked(
    parts: AuthParts,
    rules: ExplainDeps,
    user: Principal,
  ): Promise<{ asking: Asking; asked: Asked }> {
    const [{ Asking }, { OrgAccess }, { AuthError }] = await Promise.all([
      import('../../src/authorization/asking.js'),
      import('../../src/authorization/org-access.js'),
      import('../../src/errors.js'),
    ]);
    const { abilities } = rules;
    const attributes = { load: (who: Principal) => this.withAttributes(parts, abilities, who, undefined, true) };
    const orgAccess = new OrgAccess(abilities, () => parts.orgs, attributes);
    const asking = new Asking({ abilities, orgAccess, tenant: parts.orgRoles.tenant });
    if (this.org === undefined) return { asking, asked: asking.resolve(user) };
    try {
      return { asking, asked: await asking.resolve(user, { org: this.org }) };
    } catch (error) {
      if (!(error instanceof AuthError && error.code === 'not_found')) throw error;
      throw new CliFailure(`Unknown organization: no organization ${JSON.stringify(this.org)}`);
    }
  }

  /**
   * The `--field` (or `--attribute`) pairs as an object: `key=value` as URL parameters give them (a
   * canonical integer a number), `key:=JSON` typed. A pair without `=`, or bad JSON after `:=`, is a usage error.
   */
  private pairs(option: string, list: readonly string[] | undefined): Record<string, unknown> | CliFailure {
    const params: Record<string, string> = {};
    const typed: Record<string, unknown> = {};
    for (const pair of list ?? []) {
      const at = pair.indexOf('=');
      const isTyped = at > 1 && pair[at - 1] === ':';
      if (at < 1 || (isTyped && at < 2))
        return new CliFailure(
          `Usage Error: ${option} ${JSON.stringify(pair)} is not key=value or key:=JSON`,
          EXIT_USAGE,
        );
      if (!isTyped) {
        params[pair.slice(0, at)] = pair.slice(at + 1);
        continue;
      }
      try {
        typed[pair.slice(0, at - 1)] = JSON.parse(pair.slice(at + 1));
      } catch {
        return new CliFailure(
          `Usage Error: ${option} ${JSON.stringify(pair)}: the value after := is not JSON (true, ` +
            `false, null, a number, "a string", a list or an object)`,
          EXIT_USAGE,
        );
      }
    }
    return { ...routeContext(params), ...typed };
  }
}
