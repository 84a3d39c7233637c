/**
 * Zod schemas as the document's JSON Schemas (2020-12, the dialect of OpenAPI 3.1): what a body is
 * validated with is what the document says, converted here and nowhere else. A schema with an
 * `id` in its metadata becomes a component (`#/components/schemas/<id>`) and is referred to.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';

export type Schema = OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject;

/** Request bodies are described as they are sent (`input`), responses as they are answered (`output`). */
export type Direction = 'input' | 'output';

const DEFS = '#/$defs/';
const COMPONENTS = '#/components/schemas/';

export class SchemaComponents {
  /** `components.schemas`, filled as operations refer to them. */
  readonly schemas: Record<string, OpenAPIV3_1.SchemaObject> = {};
  private readonly texts = new Map<string, string>();

  /** The schema as the document has it: a reference to its component, or inline when it has no id. */
  of(schema: z.ZodType, io: Direction): Schema {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw' });
    const { $schema: _dialect, $defs, ...root } = json;
    for (const [id, definition] of Object.entries($defs ?? {}))
      this.add(id, relink(definition) as OpenAPIV3_1.SchemaObject);
    return relink(root) as Schema;
  }

  /** One component per id: two different schemas under one name would make one of them wrong. */
  private add(id: string, schema: OpenAPIV3_1.SchemaObject): void {
    const text = JSON.stringify(schema);
    const known = this.texts.get(id);
    if (known !== undefined && known !== text) throw new Error(`two different schemas are named ${id}`);
    this.texts.set(id, text);
    this.schemas[id] = schema;
  }
}

/** A copy whose `$ref`s to `$defs` point at the components instead. */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith(DEFS)
        ? COMPONENTS + item.slice(DEFS.length)
        : relink(item),
    ]),
  );
}
