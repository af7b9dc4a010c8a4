export { describeOrderStoreConformance } from './conformance.js';
export type { ConformanceFactory, ConformanceFixture, ConformanceOptions } from './conformance.js';
