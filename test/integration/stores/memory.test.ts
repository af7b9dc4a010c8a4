import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { describeOrderStoreConformance } from '../../../server/testing/index.js';

describeOrderStoreConformance('memory', () => Promise.resolve({ store: createMemoryStore() }));
