/**
 * POST /v1/authorise: direct card payments and APM payments (`payment_method` present). The
 * answer is the XML `respon`, signed with the authoriseResponse recipe.
 */
import { findApmMethod } from '../apm-methods.js';
import { checkCard, isCardProblem, type CheckedCard } from '../cards.js';
import { baseUrlOf, type RequestInfo, type SandboxContext } from '../context.js';
import { badInput, str, xmlReply, type Reply } from '../http.js';
import { applyCardBehaviour, notify, STATUS, setStatus, subscriptionFields } from '../payments.js';
import { issuerPath, openSession } from '../sessions.js';
import { assertNewOrder, newTransaction, pickDetails, subscriptionRequest } from '../transactions.js';
import type { RiskReason, SandboxAccount, SandboxTransaction } from '../types.js';
import { amountOf, authenticate, validate } from '../validate.js';
import { decimalAmount } from '../wire/format.js';
import { apmRequest, directRequest } from '../wire/payment-requests.js';
import { sign } from '../wire/signature.js';
import { RESULT_INFO } from '../wire/codes.js';
import { responXml as writeRespon } from '../wire/xml.js';

/**
 * The signed `respon` of a transaction; `full` adds every element of the direct reply. Built by
 * assigning properties, not with object spreads: in V8 each property written after a spread costs
 * about a microsecond, and this runs for every authorise.
 */
export function responXml(ctx: SandboxContext, account: SandboxAccount, tx: SandboxTransaction, issuerUrl: string | undefined, full: boolean): string {
  const fields: Record<string, string | RiskReason[] | undefined> = {
    merchant_id: tx.merchantId,
    account_id: tx.accountId,
    order_no: tx.orderNo,
    amount: decimalAmount(tx.amount, tx.currency),
    currency: tx.currency,
    transaction_id: tx.transactionId,
    order_status: tx.orderStatus,
  };
  if (full) {
    fields.card = tx.card;
    fields.result_info = tx.resultInfo;
    Object.assign(fields, subscriptionFields(ctx, tx));
    fields.note = tx.details.note ?? '';
    fields.token_id = tx.tokenId;
    fields.connector = 'SANDBOX';
    fields.threeds_result = tx.threedsResult;
    fields.risk_action = tx.riskAction;
    fields.risk_score = tx.riskScore;
    fields.risk_reasons = tx.riskReasons;
  } else {
    fields.result_info = tx.resultInfo;
  }
  fields.issuer_url = issuerUrl;
  fields.encryption_data = sign('authoriseResponse', fields, account.signKey, ctx.options.recipes);
  return writeRespon(fields);
}

/**
 * A card from the request, or the masked card and behaviour behind a stored token; null for a
 * token this account does not have (unknown, removed or another account's), which is declined.
 */
function cardOf(ctx: SandboxContext, account: SandboxAccount, request: { card: string; token_id?: string | undefined; expiration_month?: string | undefined; expiration_year?: string | undefined; security_code?: string | undefined }): CheckedCard | null {
  if (request.card === '') {
    const token = ctx.ledger.tokens.get(request.token_id ?? '');
    if (token?.merchantId !== account.merchantId || token.accountId !== account.accountId || (token.removedAt ?? null) !== null) return null;
    // A security code sent with a token is checked for its form only; none is required.
    if ((request.security_code ?? '') !== '' && !/^\d{3,4}$/.test(request.security_code ?? '')) throw badInput('security_code', 'security_code must be 3 or 4 digits');
    return { masked: token.card, behaviour: token.behaviour as CheckedCard['behaviour'] };
  }
  const checked = checkCard(
    { card: request.card, expirationMonth: request.expiration_month ?? '', expirationYear: request.expiration_year ?? '', securityCode: request.security_code ?? '' },
    new Date(),
  );
  if (isCardProblem(checked)) throw badInput(checked.field, checked.message);
  return checked;
}

async function authoriseDirect(ctx: SandboxContext, req: RequestInfo, fields: Record<string, unknown>, account: SandboxAccount): Promise<Reply> {
  const request = validate(directRequest, fields);
  const amount = amountOf(request.amount, request.currency, 'amount');
  // One SQLite transaction from the duplicate check to the notification's record: each statement
  // on its own would take and drop the file's locks again (a few system calls apiece). Its commit
  // is shared with the payments of the same turn; the answer goes out once it is committed.
  const { tx, issuerUrl } = await ctx.ledger.database.durably(() => {
    assertNewOrder(ctx, account, request.order_no);
    const card = cardOf(ctx, account, request);
    const created = newTransaction(account, {
      orderNo: request.order_no, kind: 'card', paymentMethod: 'CARD', amount, currency: request.currency,
      notifyUrl: request.notify_url, details: pickDetails(request),
    });
    created.card = card?.masked ?? '';
    created.tokenId = request.card === '' ? (request.token_id ?? '') : '';
    let outcome: 'challenge' | 'final' = 'final';
    if (card === null) setStatus(created, STATUS.declined(RESULT_INFO.invalidToken), 'declined: unknown or removed token');
    else {
      created.pending = { subscription: subscriptionRequest(request.subscription, request.amount), tokenize: request.token_flag === 'YES', behaviour: card.behaviour };
      outcome = applyCardBehaviour(ctx, created, account, card.behaviour, request.open3d === 'do3DS');
    }
    const challengeUrl = outcome === 'challenge' ? baseUrlOf(ctx, req) + issuerPath('3ds', openSession(ctx, '3ds', created.transactionId).id) : undefined;
    ctx.ledger.saveTransaction(created);
    // Recorded in the same commit as the transaction; the delivery itself starts after it.
    if (challengeUrl === undefined) notify(ctx, created, 'payment');
    return { tx: created, issuerUrl: challengeUrl };
  });
  return xmlReply(responXml(ctx, account, tx, issuerUrl, true));
}

function authoriseApm(ctx: SandboxContext, req: RequestInfo, fields: Record<string, unknown>, account: SandboxAccount): Reply {
  const request = validate(apmRequest, fields);
  const method = findApmMethod(request.payment_method);
  if (method === undefined) throw badInput('payment_method', `payment_method ${request.payment_method} is not offered; optimise lists the methods`);
  if (method.needsPerson === true && (request.person?.document_number ?? '') === '') {
    throw badInput('person.document_number', `person.document_number is required for ${method.code}: the payer's tax document`);
  }
  const amount = amountOf(request.amount, request.currency, 'amount');
  assertNewOrder(ctx, account, request.order_no);
  const tx = newTransaction(account, {
    orderNo: request.order_no, kind: 'apm', paymentMethod: method.code, amount, currency: request.currency,
    notifyUrl: request.notify_url, returnUrl: request.return_url, details: pickDetails(request),
  });
  tx.riskReasons = [];
  setStatus(tx, STATUS.issuer, 'redirect to issuer');
  let issuerUrl = '';
  ctx.ledger.database.atomically(() => {
    issuerUrl = baseUrlOf(ctx, req) + issuerPath('apm', openSession(ctx, 'apm', tx.transactionId).id);
    ctx.ledger.saveTransaction(tx);
  });
  return xmlReply(responXml(ctx, account, tx, issuerUrl, false));
}

export function handleAuthorise(ctx: SandboxContext, req: RequestInfo, fields: Record<string, unknown>): Reply | Promise<Reply> {
  const account = authenticate(ctx, 'authorise', fields);
  return str(fields, 'payment_method') === '' ? authoriseDirect(ctx, req, fields, account) : authoriseApm(ctx, req, fields, account);
}
