/**
 * The names of the application's own user attributes (`auth.defineUserAttributes(['team'])`, or
 * `"userAttributes"` in a policy file), which rules may name as `${user.team}`: declared before a
 * role naming them is defined, so that any other name is an error there (rule-schema.ts). Their
 * values are user-attributes.ts's business; the CLI and policy analysis need only the names.
 */
import { isAttribute } from './placeholders.js';

/** An attribute name: what a placeholder can name. */
const ATTRIBUTE_NAME = /^[A-Za-z_]+$/;

/** The declared names, which the rule checks read; no values (the CLI and policy analysis use this alone). */
export class AttributeNames {
  private readonly declared = new Set<string>();

  /** The names declared so far. */
  get names(): ReadonlySet<string> {
    return this.declared;
  }

  /** Declares more names (declaring one again is harmless); a TypeError naming a bad one, `call` saying where. */
  declare(names: readonly string[], call = 'defineUserAttributes(names)'): void {
    if (!Array.isArray(names)) throw new TypeError(`${call}: names must be a list of attribute names`);
    for (const name of names) {
      if (typeof name !== 'string' || !ATTRIBUTE_NAME.test(name))
        throw new TypeError(
          `${call}: ${JSON.stringify(name)} is not an attribute name (letters and _, as a placeholder ` +
            `` +
            `\${user.name} has)`,
        );
      if (!isAttribute(name))
        throw new TypeError(
          `${call}: "${name}" is the package's own \${user.${name}}; give the attribute another name`,
        );
    }
    for (const name of names) this.declared.add(name);
  }
}
