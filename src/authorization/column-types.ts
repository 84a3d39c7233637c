/**
 * The type of a column, as a rule's value must have it (docs/authorization.md, "values of the column's
 * type"): `number`, `string`, `boolean`, `date` or `bigint` (a JavaScript bigint: a number never
 * equals one, in memory as in SQL), read from MikroORM's metadata, discovered (`runtimeType`, what
 * the entity's field holds) or not yet (`defineEntity`'s property builders give a `Type` class;
 * decorators a name). Columns of other types (JSON, decimal, binary, a date-only column, whose
 * field holds a string) are not checked: `undefined`.
 */
export type ColumnType = 'number' | 'string' | 'boolean' | 'date' | 'bigint';

/** The parts of a MikroORM property that say its type, discovered or not. */
export interface TypedProperty {
  runtimeType?: unknown;
  type?: unknown;
}

const BY_NAME: Record<string, ColumnType> = {
  number: 'number',
  integer: 'number',
  int: 'number',
  smallint: 'number',
  tinyint: 'number',
  mediumint: 'number',
  float: 'number',
  double: 'number',
  string: 'string',
  text: 'string',
  uuid: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  datetime: 'date',
  bigint: 'bigint',
  // MikroORM's names for JavaScript's types, and its Type classes' names.
  Date: 'date',
  IntegerType: 'number',
  SmallIntType: 'number',
  TinyIntType: 'number',
  MediumIntType: 'number',
  FloatType: 'number',
  DoubleType: 'number',
  StringType: 'string',
  TextType: 'string',
  UuidType: 'string',
  BooleanType: 'boolean',
  DateTimeType: 'date',
};

/** The column's type, or undefined for a type this check leaves alone. */
export function columnType(property: TypedProperty | undefined): ColumnType | undefined {
  if (!property) return undefined;
  const { type, runtimeType } = property;
  const instanceOf = (type as { constructor?: { name?: string } } | undefined)?.constructor?.name;
  const named = typeof type === 'string' ? type : typeof type === 'function' ? type.name : instanceOf;
  // A date-only column holds a string ("2026-11-28") that is ordered as a date: left alone.
  if (named === 'DateType' || named === 'date') return undefined;
  // A bigint column's field holds what its mode says: a bigint unless a number or a string.
  if (named === 'BigIntType' && typeof runtimeType !== 'string') {
    const mode = (type as { mode?: unknown }).mode;
    return mode === 'number' ? 'number' : mode === 'string' ? 'string' : 'bigint';
  }
  if (typeof runtimeType === 'string') return Object.hasOwn(BY_NAME, runtimeType) ? BY_NAME[runtimeType] : undefined;
  return named && Object.hasOwn(BY_NAME, named) ? BY_NAME[named] : undefined;
}

const INTEGERS = new Set(['integer', 'int', 'smallint', 'tinyint', 'mediumint']);
const INTEGER_TYPES = new Set(['IntegerType', 'SmallIntType', 'TinyIntType', 'MediumIntType']);

/** The name a property's type goes by: given as a name, a Type class or an instance of one. */
function typeName(type: unknown): string | undefined {
  if (typeof type === 'string') return type;
  return typeof type === 'function'
    ? type.name
    : (type as { constructor?: { name?: string } } | undefined)?.constructor?.name;
}

/** Whether a number column holds integers only (its type says so: `p.integer()`, `type: 'int'`). */
export function isIntegerColumn(property: TypedProperty | undefined): boolean {
  const named = typeName(property?.type);
  return named !== undefined && (INTEGERS.has(named) || INTEGER_TYPES.has(named));
}

/**
 * Whether the property holds a list of values (an array column, `p.array()`: MikroORM's
 * `ArrayType`, whose field holds strings unless its runtime type says otherwise; an enum array),
 * and the elements' type; undefined for a property that is no list.
 */
export function listColumn(
  property: (TypedProperty & { array?: unknown }) | undefined,
): { element: ColumnType | undefined } | undefined {
  if (!property) return undefined;
  const { type, runtimeType } = property;
  if (typeof runtimeType === 'string' && runtimeType.endsWith('[]')) {
    const element = runtimeType.slice(0, -2);
    return { element: Object.hasOwn(BY_NAME, element) ? BY_NAME[element] : undefined };
  }
  if (typeName(type) === 'ArrayType') return { element: 'string' };
  return property.array === true ? { element: undefined } : undefined;
}

/** A value's type in the same terms (`null` fits every column; other values: undefined). */
export function valueType(value: unknown): ColumnType | 'null' | undefined {
  if (value === null) return 'null';
  if (value instanceof Date) return 'date';
  const type = typeof value;
  return type === 'number' || type === 'string' || type === 'boolean' || type === 'bigint' ? type : undefined;
}

/** Whether `value` may be compared with a column of `column`'s type (null may; an unchecked column takes anything). */
export function fitsColumn(value: unknown, column: ColumnType | undefined): boolean {
  if (column === undefined) return true;
  const type = valueType(value);
  return type === 'null' || type === column;
}

/** Whether the order operators (`$lt`, `$lte`, `$gt`, `$gte`) apply to a column of this type. */
export const isOrdered = (column: ColumnType | undefined): boolean =>
  column === undefined || column === 'number' || column === 'bigint' || column === 'date';
