export * from './memory.js';
export * from './sqlite.js';
export * from './postgres.js';
