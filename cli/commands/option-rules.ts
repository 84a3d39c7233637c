/**
 * Flag rules for a command's `static schema` (typanion validators run by clipanion before
 * `execute`). Their messages name the flags as the operator typed them, not the class fields.
 */
import * as t from 'typanion';

type CommandFields = { [field: string]: unknown };

/** A field counts as given when it is set and not `false` (an absent Boolean option is false). */
const given = (value: unknown): boolean => value !== undefined && value !== false;

/** The option must be given: `required(field, '--flag')`. */
export function required(field: string, flag: string): t.LooseValidator<CommandFields, CommandFields> {
  return t.makeValidator<CommandFields>({
    test: (command, state) => given(command[field]) || fail(state, `${flag} is required`),
  });
}

/** At most one of the options may be given: `exclusive({ field: '--flag', other: '--other' })`. */
export function exclusive(flags: Record<string, string>): t.LooseValidator<CommandFields, CommandFields> {
  return t.makeValidator<CommandFields>({
    test: (command, state) => {
      const used = Object.keys(flags).filter((field) => given(command[field]));
      return (
        used.length <= 1 || fail(state, `${used.map((field) => flags[field]).join(' and ')} cannot be used together`)
      );
    },
  });
}

/** The option must be given unless another is: `requiredUnless('action', '--action', 'policy', '--policy')`. */
export function requiredUnless(
  field: string,
  flag: string,
  other: string,
  otherFlag: string,
): t.LooseValidator<CommandFields, CommandFields> {
  return t.makeValidator<CommandFields>({
    test: (command, state) =>
      given(command[field]) || given(command[other]) || fail(state, `${flag} is required (or ${otherFlag})`),
  });
}

/** One option needs another: `needs('policy', '--policy', 'app', '--app', 'policies are code')`. */
export function needs(
  field: string,
  flag: string,
  other: string,
  otherFlag: string,
  why: string,
): t.LooseValidator<CommandFields, CommandFields> {
  return t.makeValidator<CommandFields>({
    test: (command, state) =>
      !given(command[field]) || given(command[other]) || fail(state, `${flag} needs ${otherFlag}: ${why}`),
  });
}

function fail(state: t.ValidationState | undefined, message: string): false {
  // "<path>: <message>", the form clipanion expects of typanion errors; "." is the command itself.
  state?.errors?.push(`.: ${message}`);
  return false;
}
