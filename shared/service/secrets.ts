export const WORKSPACE_SCOPES = ['ALL', 'SOME', 'NONE'] as const;
export type WorkspaceScope = (typeof WORKSPACE_SCOPES)[number];

export interface CreateSecretRequest {
  alias: string;
  description?: string;
  value: string;
  allowed_workspaces_type: WorkspaceScope;
  allowed_workspaces?: string[];
}

export interface UpdateSecretRequest {
  alias: string;
  description?: string;
  value?: string;
  allowed_workspaces_type?: WorkspaceScope;
  allowed_workspaces?: string[];
}

/** A secret as listed; the value is never returned. Times are Unix milliseconds. */
export interface SecretRecord {
  alias: string;
  description: string;
  allowed_workspaces_type: WorkspaceScope;
  allowed_workspaces: string[];
  org: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  last_updated_by: string;
}

export interface ListSecretsResponse {
  secrets: SecretRecord[];
}
