/**
 * Service errors as the command line says them: the one wording of shared/ui/messages.ts
 * (serviceProblem), pointing at the CLI's commands where the app points at its screens. Light on
 * purpose: main.ts loads it for every command.
 */
import { serviceProblem, type ServiceHints } from '../../shared/ui/messages.js';
import { isServiceError } from '../engine/service/errors.js';

/** What a person can do at the command line; `url` names the service (else "the service"). */
export function cliHints(url?: string): ServiceHints {
  return {
    ...(url ? { service: url } : {}),
    signIn: 'give a new token with "docsync login --url URL" (or DOCSYNC_TOKEN)',
    access: 'check the account with whoever runs the service',
    reach: 'check the address ("docsync login --url URL" or DOCSYNC_URL) and that the service is running',
    proxySetting: '"docsync login --proxy" or DOCSYNC_PROXY',
    caFile: '"docsync login --url URL --ca-file FILE" (or DOCSYNC_CA_FILE=FILE for one command)',
  };
}

/** An error as the command line says it: a service error in the shared words, anything else as it is. */
export function inCliWords(err: unknown, url?: string): Error {
  if (!isServiceError(err)) return err instanceof Error ? err : new Error(String(err));
  return new Error(serviceProblem(err, cliHints(url)));
}
