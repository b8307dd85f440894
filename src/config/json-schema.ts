/** JSON Schema of the deployment file, for editor completion (config/deployment.schema.json). */
import { z } from 'zod';
import { deploymentSchema } from './schema.js';

/** The JSON Schema (draft 2020-12) of what a deployment file may contain. */
export function deploymentJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(deploymentSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }),
    title: 'chainpilot deployment',
  };
}
