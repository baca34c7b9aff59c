import type { RunSettings } from '../../shared/service/runs.js';
import type { SandboxCore } from '../core.js';
import { badRequest } from '../http/errors.js';
import { secretAllowedIn, secretRow } from '../routes/secrets.js';

const SETTINGS_FIELDS = ['keys', 'runtime_config', 'tags'];

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks run settings (spec 2.7) against what the deployment or app defines: custom keys
 * must exist in its configuration, secret keys must be its secret keys and name secrets of
 * the vault that the output workspace may use.
 */
export function checkSettings(
  core: SandboxCore,
  raw: unknown,
  def: { what: string; customKeys: Record<string, unknown>; secretKeys: string[] },
  outputWorkspace: string,
): RunSettings {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw badRequest('"settings" must be an object');
  for (const k of Object.keys(raw)) {
    if (!SETTINGS_FIELDS.includes(k)) throw badRequest(`settings.${k} is not a run setting; known: ${SETTINGS_FIELDS.join(', ')}`);
  }
  const out: RunSettings = {};
  if (raw.tags !== undefined) {
    if (!Array.isArray(raw.tags) || !raw.tags.every((t) => typeof t === 'string')) throw badRequest('settings.tags must be an array of strings');
    out.tags = raw.tags as string[];
  }
  if (raw.keys !== undefined) {
    if (!isObject(raw.keys)) throw badRequest('settings.keys must be an object');
    for (const k of Object.keys(raw.keys)) if (k !== 'custom' && k !== 'secret') throw badRequest(`settings.keys.${k} is not known; use custom or secret`);
    const { custom, secret } = raw.keys;
    out.keys = {};
    if (custom !== undefined) {
      if (!isObject(custom)) throw badRequest('settings.keys.custom must be an object');
      const known = Object.keys(def.customKeys);
      for (const k of Object.keys(custom)) {
        if (!known.includes(k)) throw badRequest(`settings.keys.custom.${k} is not a custom key of ${def.what} (its keys: ${known.join(', ') || 'none'})`);
      }
      out.keys.custom = custom;
    }
    if (secret !== undefined) {
      if (!isObject(secret)) throw badRequest('settings.keys.secret must be an object of strings');
      for (const [k, v] of Object.entries(secret)) {
        if (!def.secretKeys.includes(k)) throw badRequest(`settings.keys.secret.${k} is not a secret key of ${def.what} (its secret keys: ${def.secretKeys.join(', ') || 'none'})`);
        if (typeof v !== 'string') throw badRequest(`settings.keys.secret.${k} must name a secret (a string)`);
        const row = secretRow(core, v);
        if (!row) throw badRequest(`settings.keys.secret.${k}: no secret "${v}" in the organization's vault`);
        if (!secretAllowedIn(row, outputWorkspace)) throw badRequest(`settings.keys.secret.${k}: secret "${v}" may not be used in workspace "${outputWorkspace}"`);
      }
      out.keys.secret = secret as Record<string, string>;
    }
  }
  if (raw.runtime_config !== undefined) {
    const rc = raw.runtime_config;
    if (!isObject(rc)) throw badRequest('settings.runtime_config must be an object');
    out.runtime_config = {};
    if (rc.generate_post_process_pdf !== undefined) {
      if (typeof rc.generate_post_process_pdf !== 'boolean') throw badRequest('settings.runtime_config.generate_post_process_pdf must be a boolean');
      out.runtime_config.generate_post_process_pdf = rc.generate_post_process_pdf;
    }
    // The PDF passwords live under the deployment's namespace segment only; a block under any other
    // key (e.g. `svc` sent to a deployment whose segment is another) is ignored, as the service does.
    const ns = core.opts.namespace;
    const block = Object.hasOwn(rc, ns) ? rc[ns] : undefined;
    if (block !== undefined) {
      const pw = isObject(block) && isObject(block.pdf) ? block.pdf.passwords : undefined;
      if (!isObject(pw) || !Object.values(pw).every((v) => typeof v === 'string')) {
        throw badRequest(`settings.runtime_config.${ns} must be {pdf: {passwords: {title: password}}} with string passwords`);
      }
      out.runtime_config[ns] = { pdf: { passwords: pw as Record<string, string> } };
    }
  }
  return out;
}
