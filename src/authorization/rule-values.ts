/**
 * Values of the column's type (docs/authorization.md): where a rule meets an entity whose columns are
 * known (accessibleBy's `{ em }`, `auth policy lint --app`), a literal of another type than its
 * column (`{ score: '1' }` on an integer column, `{ flag: 'true' }`, `$in: ['1', '5']`, a number
 * against a text column) matches no row in memory, where the database would coerce it and match;
 * and `$lt`, `$lte`, `$gt`, `$gte` order numbers and dates only. Both are mistakes in the rule,
 * reported with its role, position, field and both types. A value that is one placeholder
 * (`${user.team}`) is known at run time only: condition-query.ts decides it then.
 */
import { columnType, isOrdered, valueType, type ColumnType, type TypedProperty } from './column-types.js';
import type { RoleDefinition } from './role-rules.js';

/** An entity as the check reads it: its properties, each a column of a type, or a relation to another entity. */
export interface EntityShape {
  name: string;
  property(
    name: string,
  ): { column: ColumnType | undefined } | { target: EntityShape | undefined; many: boolean } | undefined;
}

export interface ValueProblem {
  /** The field path as the rule names it. */
  field: string;
  message: string;
}

const WHOLE_PLACEHOLDER = /^\$\{(user|org)\.[A-Za-z_]+\}$/;
const ORDER = ['$lt', '$lte', '$gt', '$gte'];
const isOperators = (value: unknown): value is Record<string, unknown> =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  Object.keys(value).some((key) => key.startsWith('$'));

/**
 * What is wrong with the values of `conditions` (a rule's, as written) on the entity `shape`;
 * `prefix`: the path there, in `$elemMatch`.
 */
export function valueProblems(conditions: unknown, shape: EntityShape, prefix = ''): ValueProblem[] {
  if (conditions === null || typeof conditions !== 'object') return [];
  return Object.entries(conditions).flatMap(([key, value]): ValueProblem[] => {
    if (key === '$and' || key === '$or' || key === '$nor') {
      return Array.isArray(value) ? value.flatMap((part) => valueProblems(part, shape, prefix)) : [];
    }
    if (key.startsWith('$')) return [];
    return fieldProblems(key, value, shape, prefix);
  });
}

function fieldProblems(path: string, test: unknown, shape: EntityShape, prefix: string): ValueProblem[] {
  const reached = walk(shape, path);
  if (!reached) return [];
  if ('collection' in reached) {
    const match = isOperators(test) ? test['$elemMatch'] : undefined;
    return match && reached.collection ? valueProblems(match, reached.collection, `${prefix}${path}.`) : [];
  }
  const { entity, name, column } = reached;
  if (column === undefined) return [];
  const problems: ValueProblem[] = [];
  const field = prefix + path;
  const where = `"${field}" (${entity}.${name}, a ${column} column)`;
  const compare = (value: unknown) => {
    if (typeof value === 'string' && WHOLE_PLACEHOLDER.test(value)) return;
    const type = valueType(value);
    if (type === 'null' || type === column) return;
    const shown = JSON.stringify(value) ?? String(value);
    problems.push({
      field,
      message: `${where} is compared with ${shown}, a ${type ?? typeof value}: it matches no row`,
    });
  };
  const operators = (ops: Record<string, unknown>) => {
    for (const [op, value] of Object.entries(ops)) {
      if (op === '$eq' || op === '$ne') compare(value);
      else if ((op === '$in' || op === '$nin') && Array.isArray(value)) value.forEach(compare);
      else if (op === '$not' && isOperators(value)) operators(value);
      else if (ORDER.includes(op)) {
        if (!isOrdered(column))
          problems.push({ field, message: `${op} on ${where}: the order operators compare numbers and dates only` });
        else compare(value);
      }
    }
  };
  if (isOperators(test)) operators(test);
  else if (!Array.isArray(test) && (test === null || typeof test !== 'object')) compare(test);
  return problems;
}

/** Where a dotted path leads on `shape`: a column, or a collection (for `$elemMatch`); undefined where it leads nowhere known. */
type Reached =
  { entity: string; name: string; column: ColumnType | undefined } | { collection: EntityShape | undefined };
function walk(shape: EntityShape, path: string): Reached | undefined {
  const segments = path.split('.');
  let current: EntityShape | undefined = shape;
  for (let i = 0; i < segments.length && current; i++) {
    const property = current.property(segments[i]!);
    if (!property) return undefined;
    const last = i === segments.length - 1;
    if ('column' in property)
      return last ? { entity: current.name, name: segments[i]!, column: property.column } : undefined;
    if (last) return property.many ? { collection: property.target } : undefined;
    current = property.target;
  }
  return undefined;
}

/** The rules of `roles` on `subjectType` (or `all`) whose values do not fit the entity's columns, each with its role and position. */
export function roleValueProblems(roles: readonly RoleDefinition[], subjectType: string, shape: EntityShape): string[] {
  return roles.flatMap(({ role, org, rules }) =>
    rules.flatMap((rule, index) => {
      const subjects = ([] as unknown[]).concat(rule.subject);
      if (!subjects.includes(subjectType) && !subjects.includes('all')) return [];
      const where = `${org ? 'org role' : 'role'} "${role}", rule ${index + 1}`;
      return valueProblems(rule.conditions, shape).map(({ message }) => `${where}: ${message}`);
    }),
  );
}

/** The shape of a MikroORM entity, discovered (`orm.getMetadata()`) or as a schema defines it. */
export interface MetadataLike {
  className: string;
  properties: Record<string, TypedProperty & { kind?: string; targetMeta?: unknown }>;
}

/**
 * The EntityShape of MikroORM metadata; `resolve` finds a relation's target (by default its
 * `targetMeta`, which discovery sets; a schema not yet discovered names it otherwise).
 */
export function shapeOf<M extends MetadataLike>(
  meta: M,
  resolve: (property: M['properties'][string]) => M | undefined = (p) => p.targetMeta as M | undefined,
): EntityShape {
  return {
    name: meta.className,
    property(name) {
      const property = Object.hasOwn(meta.properties, name)
        ? (meta.properties[name] as M['properties'][string])
        : undefined;
      if (!property) return undefined;
      const kind = property.kind ?? 'scalar';
      if (kind === 'scalar') return { column: columnType(property) };
      if (kind === 'embedded') return undefined;
      const target = resolve(property);
      return { target: target && shapeOf(target, resolve), many: kind === '1:m' || kind === 'm:n' };
    },
  };
}

/** Each role's rules (the frozen list a definition keeps) to the entities and subject types they were found right on. */
const checked = new WeakMap<readonly unknown[], WeakMap<object, Set<string>>>();

/**
 * Throws a TypeError (`call` naming where) for the first rule of `roles` on `subjectType` whose
 * values do not fit the columns of `meta`; a role found right is not read again for that entity.
 */
export function assertRoleValues(
  call: string,
  roles: readonly RoleDefinition[],
  subjectType: string,
  meta: MetadataLike,
): void {
  for (const role of roles) {
    let byEntity = checked.get(role.rules);
    if (!byEntity) checked.set(role.rules, (byEntity = new WeakMap()));
    let types = byEntity.get(meta);
    if (!types) byEntity.set(meta, (types = new Set()));
    if (types.has(subjectType)) continue;
    const [problem] = roleValueProblems([role], subjectType, shapeOf(meta));
    if (problem) throw new TypeError(`${call}: ${problem}`);
    types.add(subjectType);
  }
}
