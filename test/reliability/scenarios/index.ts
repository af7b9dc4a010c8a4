export { crash } from './crash.js';
export { fuzz } from './fuzz.js';
export { gatewayFaults } from './gateway-faults.js';
export { hookOutbox } from './hook-outbox.js';
export { load } from './load.js';
export { multiInstance } from './multi-instance.js';
export { notificationChaos } from './notification-chaos.js';
export { security } from './security.js';
