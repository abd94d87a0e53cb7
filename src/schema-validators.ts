import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * JSON-schema validators that cost no memory that stays. The SDK's default compiles every schema
 * object it is given and keeps it for the life of the process: each approval prompt and each relayed
 * elicitation carries a new `requestedSchema` object (about 6.5 KB retained per prompt). Here one validator serves every schema with the same text, and the
 * compiled set is bounded: once it holds `limit` texts, it is dropped whole (a fresh Ajv instance),
 * so a stream of distinct schemas (prompts naming different paths) keeps at most `limit` compiled.
 * The Ajv instance is made at the first schema: every downstream server's Client gets one of these,
 * and most never validate anything (the gateway lists and calls without the Client's validation), so
 * a start with ten servers no longer builds ten Ajv instances with their formats for nothing
 * (docs/performance.md, "Round 11: the first list").
 */
export class SchemaValidators implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | null = null;
  private readonly byText = new Map<string, JsonSchemaValidator<unknown>>();

  constructor(private readonly limit = 64) {}

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const text = JSON.stringify(schema);
    let validator = this.byText.get(text);
    if (!validator) {
      if (this.byText.size >= this.limit) {
        this.ajv = null;
        this.byText.clear();
      }
      this.ajv ??= new AjvJsonSchemaValidator();
      validator = this.ajv.getValidator<unknown>(schema);
      this.byText.set(text, validator);
    }
    return validator as JsonSchemaValidator<T>;
  }

  /** How many compiled schemas are held (for tests). */
  get size(): number {
    return this.byText.size;
  }
}
