/** Validation of a deployment file for the CLI: schema, strategies and their parameters. */
import { createRedactor, describeError, isChainpilotError } from '../core/index.js';
import { effectiveConfigYaml, loadDeployment } from '../config/index.js';
import { resolveStrategies } from './resolve-strategies.js';

/** Loads and checks `file`; `text` is the redacted effective config, or the error report. */
export async function validateDeploymentFile(file: string, env?: Readonly<Record<string, string | undefined>>): Promise<{ ok: boolean; text: string }> {
  const redactor = createRedactor();
  try {
    const loaded = loadDeployment(file, env ? { env } : {});
    for (const s of loaded.secrets) redactor.add(s);
    await resolveStrategies(loaded);
    return { ok: true, text: redactor.redact(effectiveConfigYaml(loaded.deployment)) };
  } catch (e) {
    const text = isChainpilotError(e) ? `${e.code}: ${e.message}` : describeError(e);
    return { ok: false, text: redactor.redact(text) };
  }
}
