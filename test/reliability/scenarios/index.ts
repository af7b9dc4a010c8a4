export { crash } from './crash.js';
export { fuzz } from './fuzz.js';
export { gatewayFaults } from './gateway-faults.js';
export { load } from './load.js';
export { multiInstance } from './multi-instance.js';
export { notificationChaos } from './notification-chaos.js';
export { refundLedger } from './refund-ledger.js';
export { security } from './security.js';
