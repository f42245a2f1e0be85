import type { SchemaNode } from '../../contract/schema';
import { ref, type Json } from './components';

/**
 * The contract's schemas (server/contract/schemas) as JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1. A named schema is written once under components.schemas and referred to
 * everywhere else; two different schemas under one name are refused, so names stay stable.
 */
export class JsonSchemas {
  private readonly named = new Map<string, Json>();
  private readonly serialized = new Map<string, string>();

  /** The JSON Schema of `node`: a `$ref` for a named schema, the schema itself otherwise. */
  of(node: SchemaNode): Json {
    const fallback = node.fallback === undefined ? {} : { default: node.fallback };
    if (node.name === undefined) return { ...this.body(node), ...fallback };
    const body = { ...this.body(node), ...(node.description ? { description: node.description } : {}) };
    const text = JSON.stringify(body);
    const known = this.serialized.get(node.name);
    if (known !== undefined && known !== text) throw new Error(`Two different schemas are named ${node.name}`);
    if (known === undefined) {
      // Registered before its members are read, so the order of components follows first use.
      this.serialized.set(node.name, text);
      this.named.set(node.name, body);
    }
    return { ...ref('schemas', node.name), ...fallback };
  }

  /** Every named schema met so far, for components.schemas. */
  components(): Record<string, Json> {
    return Object.fromEntries(this.named);
  }

  private body(node: SchemaNode): Json {
    const described = node.description && node.name === undefined ? { description: node.description } : {};
    return { ...this.shape(node), ...described };
  }

  private shape(node: SchemaNode): Json {
    switch (node.kind) {
      case 'string': {
        const { max, min, pattern, format } = node.rules;
        return {
          type: 'string',
          ...(min === undefined ? {} : { minLength: min }),
          ...(max === undefined ? {} : { maxLength: max }),
          ...(pattern ? { pattern: pattern.source } : {}),
          ...(format ? { format } : {}),
        };
      }
      case 'password':
        return { type: 'string', format: 'password', writeOnly: true, description: '8 to 72 bytes in UTF-8.' };
      case 'boolean':
        return { type: 'boolean' };
      case 'integer':
      case 'number':
        return {
          type: node.kind,
          ...(node.min === undefined ? {} : { minimum: node.min }),
          ...(node.max === undefined ? {} : { maximum: node.max }),
        };
      case 'literal':
        return { const: node.value };
      case 'enum':
        return { type: 'string', enum: [...node.values] };
      case 'array':
        return {
          type: 'array',
          items: this.of(node.items),
          ...(node.minItems === undefined ? {} : { minItems: node.minItems }),
          ...(node.maxItems === undefined ? {} : { maxItems: node.maxItems }),
        };
      case 'object': {
        const required = Object.entries(node.properties)
          .filter(([, member]) => member.optional !== true)
          .map(([key]) => key);
        const properties = Object.fromEntries(
          Object.entries(node.properties).map(([key, member]) => [key, this.of(member)]),
        );
        return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
      }
      case 'nullable': {
        const inner = this.of(node.inner);
        // `type: [..., 'null']` reads best, but an enum or const would still refuse the null.
        return typeof inner.type === 'string' && !('enum' in inner) && !('const' in inner)
          ? { ...inner, type: [inner.type, 'null'] }
          : { anyOf: [inner, { type: 'null' }] };
      }
      case 'unknown':
        return {};
      case 'component':
        return ref('schemas', node.component);
    }
  }
}
