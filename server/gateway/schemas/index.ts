export { gatewayErrorBodySchema, zodIssuesToFields, type FieldIssue, type GatewayErrorBody } from './common.js';
export * from './payments.js';
export * from './responses.js';
export * from './batch.js';
export * from './queries.js';
export * from './payouts.js';
export * from './subscriptions.js';
export * from './optimise.js';
export * from './notifications.js';
