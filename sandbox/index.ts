export { startSandbox, type RunningSandbox } from './server.js';
export { parseFaultSpec, type FaultSpec } from './faults.js';
export { loadUsersFile, DEFAULT_USERS, type UsersConfig } from './users.js';
export { DEFAULT_OPTIONS, type SandboxOptions } from './options.js';
export { DEPLOYMENTS, INVOICE_APP } from './catalog.js';
export { startBuiltInSandbox, type BuiltInSandbox } from './built-in.js';
