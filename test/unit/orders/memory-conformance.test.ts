import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { describeOrderStoreConformance } from '../../../server/testing/index.js';

// The reference store passes the same suite every adapter must pass.
describeOrderStoreConformance('memory', () => Promise.resolve({ store: createMemoryStore() }));
