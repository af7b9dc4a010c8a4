export * from './errors.js';
export * from './logging.js';
export * from './gateway/index.js';
export * from './orders/index.js';
export * from './checkout/index.js';
export * from './admin/index.js';
