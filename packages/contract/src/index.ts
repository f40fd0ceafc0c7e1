// @feira/contract: everything that crosses the wire. One file per area; the
// platform validates with these schemas and the SDK types with them.
export * from './errors.js';
export * from './list.js';
export * from './quote.js';
export * from './rate-limit.js';
export * from './records.js';
export * from './scopes.js';
export * from './token.js';
export * from './webhook.js';
