/**
 * What the sandbox can run: one app and the deployments of it that the README documents.
 * Everything here is fixed; runs are validated against it as the spec says (2.7, 4.3b, 4.4).
 */
export interface AppDef {
  id: string;
  name: string;
  /** The marketplace account that published it (spec 4.3b, `owner`). */
  owner: string;
  versions: string[];
  latest: string;
  customKeys: Record<string, unknown>;
}

export type Upstream = { kind: 'mailbox'; folder: string } | null;

export interface DeploymentDef {
  id: string;
  app: AppDef;
  outputWorkspace: string;
  /** Stop at STOPPED_AT_CHECKPOINT when a validation fails, until reviewed. */
  review: boolean;
  customKeys: Record<string, unknown>;
  secretKeys: string[];
  upstream: Upstream;
}

export const INVOICE_APP: AppDef = {
  id: 'app-invoice-extractor',
  name: 'invoice-extractor',
  owner: 'sandbox-marketplace',
  versions: ['1.0.0', '1.1.0'],
  latest: '1.1.0',
  customKeys: { currency: 'USD', min_confidence: 0.5 },
};

const base = { app: INVOICE_APP, outputWorkspace: 'team', customKeys: INVOICE_APP.customKeys, secretKeys: ['erp_api_key'] };

export const DEPLOYMENTS: DeploymentDef[] = [
  { ...base, id: 'sandbox-invoices', review: false, upstream: null },
  { ...base, id: 'sandbox-invoices-review', review: true, upstream: null },
  { ...base, id: 'sandbox-mailbox', review: false, upstream: { kind: 'mailbox', folder: 'svc-drive/workspaces/team/mailbox' } },
];

export const APPS: AppDef[] = [INVOICE_APP];

export function findDeployment(id: string): DeploymentDef | undefined {
  return DEPLOYMENTS.find((d) => d.id === id);
}
