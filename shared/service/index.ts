export * from './common.js';
export * from './batches.js';
export * from './runs.js';
export * from './results.js';
export * from './secrets.js';
export * from './audit.js';
export * from './files.js';
export * from './field-names.js';
