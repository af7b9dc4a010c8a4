export { createAdminRouter } from './router.js';
export type { AdminRouter } from './router.js';
export type { AdminGatewayClient, AdminKit, AdminRouterOptions, Staff } from './options.js';
export { JOB_ACTIONS, JOB_ITEM_STATUSES } from './store.js';
export { createMemoryAdminStore } from './stores/memory.js';
export type {
  AdminJob, AdminStore, JobAction, JobItem, JobItemStatus, JobItemUpdate, JobStatus, JobSummary, NewJob,
  PayoutPatch, PayoutRecord, PayoutStatus, SavePayoutResult, UnmatchedNotification,
} from './store.js';
export { createSqliteAdminStore } from './stores/sqlite.js';
export type { SqliteAdminStoreOptions } from './stores/sqlite.js';
export { createPostgresAdminStore } from './stores/postgres.js';
export type { AdminPgPool, AdminPgQueryable, PostgresAdminStoreOptions } from './stores/postgres.js';
export type { JobRunner } from './jobs.js';
export type { StaffAccount, StaffSessionRecord, StaffStore } from './staff-store.js';
export type { SignInOptions, SignInRateLimitOptions, StaffLogin } from './sign-in/options.js';
export { hashPassword as hashStaffPassword } from './sign-in/passwords.js';
