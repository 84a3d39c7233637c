import { ValidationError } from '../errors.js';

const ROLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The name, if it is one a role may have; else a 400 `bad_request` naming the field `role`. */
export function validRoleName(name: string): string {
  if (typeof name !== 'string' || !ROLE_NAME.test(name)) {
    throw new ValidationError([
      { field: 'role', message: `${JSON.stringify(name)} is not a role name (1 to 64 of A-Z a-z 0-9 _ . : -)` },
    ]);
  }
  return name;
}
