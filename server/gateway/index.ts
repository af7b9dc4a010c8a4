export * from './money.js';
export * from './items.js';
export * from './dates.js';
export * from './signing.js';
export * from './codes.js';
