/** A small client of the sandbox's control API (`/_sandbox/…`, loopback only), for `notify`. */
import { CliError } from './output.js';

export interface ControlTransaction {
  transactionId: string;
  orderNo: string;
  notifyUrl?: string;
}

export interface ControlNotification {
  id: string;
  transactionId: string;
  orderNo: string;
  webhooksType: string;
  url: string;
  status: string;
  createdAt: string;
}

export interface SandboxState {
  transactions: ControlTransaction[];
  notifications: ControlNotification[];
}

export function createControlClient(baseUrl: string) {
  const root = baseUrl.replace(/\/+$/, '');
  const call = async (method: 'GET' | 'POST', path: string, body?: Record<string, string>): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        method,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new CliError(`cannot reach the sandbox at ${root} (${cause}); start it with \`npx acquiring-checkout-kit sandbox\` or pass --sandbox <url>`);
    }
    const text = await response.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text) as unknown;
    } catch {
      // not JSON: reported as text below
    }
    if (!response.ok) {
      const message = typeof json === 'object' && json !== null && 'message' in json ? String((json).message) : text.slice(0, 200);
      throw new CliError(`the sandbox refused ${method} ${path}: HTTP ${String(response.status)} ${message}`);
    }
    return json;
  };
  return {
    state: async (): Promise<SandboxState> => (await call('GET', '/_sandbox/state')) as SandboxState,
    post: (path: string, body: Record<string, string> = {}): Promise<unknown> => call('POST', path, body),
  };
}

export type ControlClient = ReturnType<typeof createControlClient>;

/** The transaction of an order number or a transaction id (the latest, when an order was tried twice). */
export function findTransaction(state: SandboxState, ref: string): ControlTransaction {
  const matches = state.transactions.filter((t) => t.transactionId === ref || t.orderNo === ref);
  const tx = matches.at(-1);
  if (tx === undefined) throw new CliError(`the sandbox has no transaction for order or transaction "${ref}"; list them at the inspector (/) or pay an order first`);
  return tx;
}

/** A notification by id, or the latest one for an order number or transaction id. */
export function findNotification(state: SandboxState, ref: string): ControlNotification {
  const byId = state.notifications.find((n) => n.id === ref);
  if (byId !== undefined) return byId;
  const forOrder = state.notifications.filter((n) => n.orderNo === ref || n.transactionId === ref);
  const latest = forOrder.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).at(-1);
  if (latest === undefined) throw new CliError(`the sandbox has sent no notification for "${ref}"; pay with a 3-D Secure card or an APM, or use \`notify trigger\``);
  return latest;
}
