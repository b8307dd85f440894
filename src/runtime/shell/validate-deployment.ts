/** Validation of a deployment file for the CLI: schema, strategies and their parameters. */
import { createRedactor, describeError, isChainpilotError, type ErrorCode } from '../../core/index.js';
import { effectiveConfigYaml } from '../../config/index.js';
import { loadDeploymentFully } from '../compose/check-deployment.js';
import { resolveStrategies } from '../compose/resolve-strategies.js';

/** Loads and checks `file`; `text` is the redacted effective config, or the error report (`code` when it is a coded error). */
export async function validateDeploymentFile(
  file: string,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<{ ok: boolean; text: string; code?: ErrorCode }> {
  const redactor = createRedactor();
  try {
    const loaded = await loadDeploymentFully(file, env ? { env } : {});
    for (const s of loaded.secrets) redactor.add(s);
    await resolveStrategies(loaded);
    return { ok: true, text: redactor.redact(effectiveConfigYaml(loaded.deployment)) };
  } catch (e) {
    const text = isChainpilotError(e) ? `${e.code}: ${e.message}` : describeError(e);
    return { ok: false, text: redactor.redact(text), ...(isChainpilotError(e) ? { code: e.code } : {}) };
  }
}
