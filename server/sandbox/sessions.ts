/** Issuer and hosted pages are reached through an unguessable id kept in the ledger. */
import type { SandboxContext } from './context.js';
import { newPageId } from './ids.js';
import type { SandboxSession, SessionKind } from './types.js';

export function openSession(ctx: SandboxContext, kind: SessionKind, transactionId: string, data: Record<string, string> = {}): SandboxSession {
  const session: SandboxSession = { id: newPageId(), kind, transactionId, state: 'open', data, createdAt: new Date().toISOString() };
  ctx.ledger.sessions.put(session.id, session);
  return session;
}

export function findSession(ctx: SandboxContext, kind: SessionKind, id: string): SandboxSession | undefined {
  const session = ctx.ledger.sessions.get(id);
  return session?.kind === kind ? session : undefined;
}

export function closeSession(ctx: SandboxContext, session: SandboxSession): void {
  ctx.ledger.sessions.put(session.id, { ...session, state: 'done' });
}

export const issuerPath = (kind: '3ds' | 'apm', id: string): string => `/issuer/${kind}/${id}`;
