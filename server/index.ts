export * from './errors.js';
export * from './gateway/index.js';
export * from './logging.js';
export type * from './orders/types.js';
export type * from './orders/store.js';
export { ORDER_STATES } from './orders/types.js';
