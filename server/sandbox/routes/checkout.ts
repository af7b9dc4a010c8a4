/**
 * POST /v1/checkout and the hosted card page. The checkout reply is the HTML page of the
 * interface (rule 3): a form of hidden gateway parameters, the request fields, their alias
 * copies and `allParams`, auto-submitted to the sandbox's own card page. State stays on the
 * server under a random page id; the card page never sees more than that id.
 */
import type { Express } from 'express';
import { checkCard, isCardProblem, type CardProblem } from '../cards.js';
import { baseUrlOf, findAccount, type RequestInfo, type SandboxContext } from '../context.js';
import { param, str, type Reply } from '../http.js';
import { pageAmount, shopperLocale, type Pages } from '../pages.js';
import { applyCardBehaviour, notify, setStatus, STATUS } from '../payments.js';
import { closeSession, findSession, issuerPath, openSession } from '../sessions.js';
import { assertNewOrder, newTransaction, pickDetails, subscriptionRequest } from '../transactions.js';
import type { SandboxSession, SandboxTransaction } from '../types.js';
import { amountOf, authenticate, validate } from '../validate.js';
import { ORDER_STATUS, RESULT_INFO } from '../wire/codes.js';
import { checkoutRequest } from '../wire/payment-requests.js';
import { backToShop, page, pageLocale, PageRefusal } from './pages-common.js';

/** Hidden gateway parameters of the checkout page (values are the sandbox's own). */
function gatewayParameters(accountId: string): Record<string, string> {
  return {
    gbc_id: 'SBX-GBC-1', connector_code: 'SANDBOX', account_name: `Sandbox account ${accountId}`, pm_id: '1',
    apm_type: 'CARD', descriptor: 'SANDBOX*SHOP', orderprefix: '', rrtimezone: 'UTC', ordernumlength: '50', to_pass_page: 'hosted',
  };
}

/** Alias name → original request field. */
const ALIASES: Readonly<Record<string, string>> = {
  merNo: 'merchant_id', gatewayNo: 'account_id', orderNo: 'order_no', orderAmount: 'amount', orderCurrency: 'currency',
  firstName: 'first_name', lastName: 'last_name', notifyUrl: 'notify_url', returnUrl: 'return_url', cancelUrl: 'cancel_url',
  signInfo: 'encryption_data', goodsInfo: 'items', shipFee: 'shipping', taxTotal: 'tax_total', itemTotal: 'item_total',
  shippingDiscount: 'shipping_discount', shipFirstName: 'delivery_firstname', shipLastName: 'delivery_lastname',
  shipCountry: 'delivery_country', shipState: 'delivery_state', shipCity: 'delivery_city', shipAddress: 'delivery_address',
  shipZip: 'delivery_postal_code', isOpen3D: 'open3d', cardType: 'card_type', paymentToken: 'token_id', shopperId: 'shopper_id',
  shopperLevel: 'shopper_level', defaultLang: 'default_lang',
};

/** Card fields never travel in the checkout page, even if a caller sent them. */
const NEVER_ECHOED = new Set(['card', 'security_code', 'expiration_month', 'expiration_year']);

export const HOSTED_SESSION_FIELD = 'sandbox_session';

/** Request fields as the page's hidden inputs: text as is, numbers as digits, nested values as JSON. */
function asFormFields(fields: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    out[name] = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  }
  return out;
}

function checkoutPageFields(req: RequestInfo, request: Record<string, string>, accountId: string, sessionId: string): Record<string, string> {
  const fields: Record<string, string> = { ...gatewayParameters(accountId), ...request };
  for (const [alias, original] of Object.entries(ALIASES)) fields[alias] = request[original] ?? '';
  fields.verifyBillingAddress = '0';
  Object.assign(fields, {
    return_url: request.return_url ?? '',
    cancel_url: request.cancel_url ?? '',
    source_request_ip: req.socket.remoteAddress ?? '',
    source_notify_url: request.notify_url ?? '',
    default_lang: request.default_lang ?? 'en',
    logo_name: 'sandbox',
    merSendLogoNo: '0',
    allParams: new URLSearchParams(request).toString(),
    [HOSTED_SESSION_FIELD]: sessionId,
  });
  return fields;
}

export function handleCheckout(ctx: SandboxContext, pages: Pages, req: RequestInfo, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'checkout', fields);
  const request = validate(checkoutRequest, fields);
  const amount = amountOf(request.amount, request.currency, 'amount');
  assertNewOrder(ctx, account, request.order_no);
  const tx = newTransaction(account, {
    orderNo: request.order_no, kind: 'hosted', paymentMethod: 'CARD', amount, currency: request.currency,
    notifyUrl: request.notify_url, returnUrl: request.return_url, cancelUrl: request.cancel_url, details: pickDetails(request),
  });
  tx.pending = { subscription: subscriptionRequest(request.subscription, request.amount), tokenize: request.token_flag === 'YES', behaviour: 'approve' };
  setStatus(tx, STATUS.issuer, 'sent to the hosted payment page');
  const echoed = Object.fromEntries(Object.entries(asFormFields(fields)).filter(([name]) => !NEVER_ECHOED.has(name)));
  let session: SandboxSession | undefined;
  ctx.ledger.database.atomically(() => {
    ctx.ledger.saveTransaction(tx);
    session = openSession(ctx, 'hosted', tx.transactionId, { open3d: request.open3d ?? '' });
  });
  const action = `${baseUrlOf(ctx, req)}/hosted/pay`;
  return pages.autosubmit(action, checkoutPageFields(req, echoed, account.accountId, session?.id ?? ''), {
    title: { key: 'sandbox.checkoutTitle' },
    message: { key: 'sandbox.checkoutMessage', vars: { orderNo: request.order_no } },
    lang: shopperLocale(request.default_lang, req.get('accept-language')),
  });
}

interface Hosted {
  session: SandboxSession;
  tx: SandboxTransaction;
}

function hostedFor(ctx: SandboxContext, id: string): Hosted {
  const session = findSession(ctx, 'hosted', id);
  const tx = session === undefined ? undefined : ctx.ledger.tx.get(session.transactionId);
  if (session === undefined || tx === undefined) throw new PageRefusal(404, 'I0404', HOSTED_SESSION_FIELD, 'No such payment page.', 'sandbox.noSuchPage');
  if (session.state !== 'open' || tx.orderStatus !== ORDER_STATUS.requiresAction) {
    throw new PageRefusal(409, 'I0001', HOSTED_SESSION_FIELD, 'This payment is already complete.', 'sandbox.alreadyComplete');
  }
  return { session, tx };
}

/** The card page; after a card problem, the field's check in the shopper's language (the card fields are not kept). */
function cardPage(ctx: SandboxContext, pages: Pages, req: RequestInfo, hosted: Hosted, problem?: CardProblem, names = { first: '', last: '' }): Reply {
  const base = `${baseUrlOf(ctx, req)}/hosted/pay/${hosted.session.id}`;
  const { tx } = hosted;
  const lang = pageLocale(req, tx);
  return pages.render(
    'hosted-card',
    {
      lang, title: { key: 'sandbox.hostedTitle' }, merchant: `${tx.merchantId} / ${tx.accountId}`, orderNo: tx.orderNo,
      amount: pageAmount(tx.amount, tx.currency, lang), payUrl: base, cancelUrl: `${base}/cancel`,
      // The gateway's own reason stays as small print: developers test against it.
      error: problem === undefined ? '' : { key: `pay.fieldError.${problem.field}` }, detail: problem?.message ?? '',
      firstName: names.first || (tx.details.first_name ?? ''), lastName: names.last || (tx.details.last_name ?? ''),
    },
    { status: problem === undefined ? 200 : 400, formTargets: [base] },
  );
}

export function mountHostedPages(app: Express, ctx: SandboxContext, pages: Pages): void {
  app.post(
    '/hosted/pay',
    page(ctx, pages, (req, fields) => cardPage(ctx, pages, req, hostedFor(ctx, str(fields, HOSTED_SESSION_FIELD)))),
  );

  app.post(
    '/hosted/pay/:id',
    page(ctx, pages, (req, fields) => {
      const hosted = hostedFor(ctx, param(req, 'id'));
      const { session, tx } = hosted;
      const names = { first: str(fields, 'first_name'), last: str(fields, 'last_name') };
      const card = checkCard(
        { card: str(fields, 'card'), expirationMonth: str(fields, 'expiration_month'), expirationYear: str(fields, 'expiration_year'), securityCode: str(fields, 'security_code') },
        new Date(),
      );
      if (isCardProblem(card)) return cardPage(ctx, pages, req, hosted, card, names);
      const account = findAccount(ctx, tx.merchantId, tx.accountId);
      if (account === undefined) throw new PageRefusal(404, 'I0404', 'account_id', 'The account of this payment no longer exists.', 'sandbox.noSuchPage');
      tx.card = card.masked;
      if (names.first !== '') tx.details.first_name = names.first;
      if (names.last !== '') tx.details.last_name = names.last;
      if (tx.pending) tx.pending.behaviour = card.behaviour;
      let challengeUrl = '';
      ctx.ledger.database.atomically(() => {
        // The hosted page always runs 3-D Secure when the card asks for it.
        const threeDs = session.data.open3d === 'do3DS' || card.behaviour === 'challenge';
        if (applyCardBehaviour(ctx, tx, account, card.behaviour, threeDs) === 'challenge') {
          challengeUrl = baseUrlOf(ctx, req) + issuerPath('3ds', openSession(ctx, '3ds', tx.transactionId).id);
        }
        ctx.ledger.saveTransaction(tx);
        closeSession(ctx, session);
      });
      if (challengeUrl !== '') {
        return { status: 303, contentType: 'text/plain; charset=utf-8', body: 'See Other', headers: { Location: challengeUrl } };
      }
      notify(ctx, tx, 'payment');
      return backToShop(ctx, pages, req, tx);
    }),
  );

  app.post(
    '/hosted/pay/:id/cancel',
    page(ctx, pages, (req) => {
      const { session, tx } = hostedFor(ctx, param(req, 'id'));
      ctx.ledger.database.atomically(() => {
        setStatus(tx, STATUS.cancelled(RESULT_INFO.cancelled), 'cancelled on the hosted page');
        tx.pending = null;
        ctx.ledger.saveTransaction(tx);
        closeSession(ctx, session);
      });
      notify(ctx, tx, 'cancel');
      return backToShop(ctx, pages, req, tx, 'cancel');
    }),
  );
}
