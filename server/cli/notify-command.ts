/**
 * `acquiring-checkout-kit notify resend|trigger`: make the sandbox send, resend, duplicate or
 * forge a notification for an order, to test how a shop handles them.
 */
import type { Command } from 'commander';
import { createControlClient, findNotification, findTransaction } from './sandbox-control.js';
import { CliError, EXIT } from './output.js';

const TRIGGERS = ['payment', 'chargeback', 'dispute'] as const;

interface CommonFlags {
  sandbox: string;
}

const sandboxOption = '--sandbox <url>';
const sandboxHelp = 'the sandbox\'s base URL (env GATEWAY_BASE_URL)';
const sandboxDefault = process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:4000';

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

export function addNotifyCommand(program: Command): void {
  const notify = program
    .command('notify')
    .description('make the sandbox send notifications to your shop (resend, duplicate, forge, trigger)');

  notify
    .command('resend')
    .description('send an earlier notification again: by notification id, or the latest one of an order number')
    .argument('<ref>', 'notification id, order number or transaction id')
    .option(sandboxOption, sandboxHelp, sandboxDefault)
    .option('--twice', 'deliver it twice in a row (a duplicate the shop must absorb)')
    .option('--bad-signature', 'deliver it with a wrong encryption_data (the shop must refuse it)')
    .action(async (ref: string, flags: CommonFlags & { twice?: boolean; badSignature?: boolean }) => {
      if (flags.twice === true && flags.badSignature === true) throw new CliError('choose --twice or --bad-signature, not both', EXIT.usage);
      const control = createControlClient(flags.sandbox);
      const delivery = findNotification(await control.state(), ref);
      const action = flags.twice === true ? 'twice' : flags.badSignature === true ? 'bad-signature' : 'resend';
      const result = (await control.post(`/_sandbox/notifications/${encodeURIComponent(delivery.id)}/${action}`)) as { sent?: unknown };
      print(`${action === 'resend' ? 'resent' : action === 'twice' ? 'sent twice' : 'sent with a bad signature'}: ${delivery.webhooksType} notification ${delivery.id} of order ${delivery.orderNo} to ${delivery.url}`);
      if (Array.isArray(result.sent)) for (const s of result.sent) print(`  ${JSON.stringify(s)}`);
    });

  notify
    .command('trigger')
    .description('have the sandbox notify an event for an order: a payment status, a chargeback or a dispute')
    .argument('<type>', TRIGGERS.join(' | '))
    .argument('<ref>', 'order number or transaction id')
    .option(sandboxOption, sandboxHelp, sandboxDefault)
    .option('--order-status <code>', 'payment: order_status to announce (e.g. 1 paid, 0 declined, -4 failed, -2 held for review)')
    .option('--payment-status <status>', 'payment: payment_status to announce')
    .option('--amount <major>', 'payment: an amount other than the transaction\'s (a mismatch the shop must catch)')
    .option('--currency <code>', 'payment: a currency other than the transaction\'s')
    .option('--reason <text>', 'chargeback/dispute: the reason')
    .option('--url <url>', 'payment: deliver to this URL instead of the transaction\'s notify URL')
    .action(async (type: string, ref: string, flags: CommonFlags & { orderStatus?: string; paymentStatus?: string; amount?: string; currency?: string; reason?: string; url?: string }) => {
      if (!(TRIGGERS as readonly string[]).includes(type)) throw new CliError(`unknown trigger "${type}": use one of ${TRIGGERS.join(', ')}`, EXIT.usage);
      const control = createControlClient(flags.sandbox);
      const tx = findTransaction(await control.state(), ref);
      const id = encodeURIComponent(tx.transactionId);
      if (type === 'payment') {
        const body: Record<string, string> = {};
        if (flags.orderStatus !== undefined) body.order_status = flags.orderStatus;
        if (flags.paymentStatus !== undefined) body.payment_status = flags.paymentStatus;
        if (flags.amount !== undefined) body.amount = flags.amount;
        if (flags.currency !== undefined) body.currency = flags.currency;
        if (flags.url !== undefined) body.url = flags.url;
        await control.post(`/_sandbox/transactions/${id}/notify`, body);
      } else {
        await control.post(`/_sandbox/transactions/${id}/${type}`, flags.reason === undefined ? {} : { reason: flags.reason });
      }
      print(`triggered: ${type} notification for order ${tx.orderNo} (transaction ${tx.transactionId})${tx.notifyUrl === undefined ? '' : ` to ${flags.url ?? tx.notifyUrl}`}`);
    });
}
