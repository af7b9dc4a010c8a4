/**
 * POST /v1/authorise: direct card payments and APM payments (`payment_method` present). The
 * answer is the XML `respon`, signed with the authoriseResponse recipe.
 */
import type { Request } from 'express';
import { toWireAmount } from '../../gateway/money.js';
import { apmPaymentRequestSchema, directPaymentRequestSchema } from '../../gateway/schemas/index.js';
import { signMessage } from '../../gateway/signing.js';
import { buildResponXml, type ResponXmlFields } from '../../gateway/xml.js';
import { findApmMethod } from '../apm-methods.js';
import { checkCard, isCardProblem, type CheckedCard } from '../cards.js';
import { baseUrlOf, type SandboxContext } from '../context.js';
import { badInput, str, xmlReply, type Reply } from '../http.js';
import { applyCardBehaviour, notify, STATUS, setStatus, subscriptionFields } from '../payments.js';
import { issuerPath, openSession } from '../sessions.js';
import { assertNewOrder, newTransaction, pickDetails, subscriptionRequest } from '../transactions.js';
import type { SandboxAccount, SandboxTransaction } from '../types.js';
import { amountOf, authenticate, validate } from '../validate.js';

/** The signed `respon` of a transaction; `full` adds every element of the direct reply. */
export function responXml(ctx: SandboxContext, account: SandboxAccount, tx: SandboxTransaction, issuerUrl: string | undefined, full: boolean): string {
  const base: Record<string, string> = {
    merchant_id: tx.merchantId,
    account_id: tx.accountId,
    order_no: tx.orderNo,
    amount: toWireAmount(tx.amount, tx.currency),
    currency: tx.currency,
    transaction_id: tx.transactionId,
    order_status: tx.orderStatus,
  };
  const fields: ResponXmlFields = full
    ? {
        ...base,
        card: tx.card,
        result_info: tx.resultInfo,
        ...subscriptionFields(ctx, tx),
        note: tx.details.note ?? '',
        token_id: tx.tokenId,
        connector: 'SANDBOX',
        threeds_result: tx.threedsResult,
        risk_action: tx.riskAction,
        risk_score: tx.riskScore,
        risk_reasons: tx.riskReasons,
        issuer_url: issuerUrl,
      }
    : { ...base, result_info: tx.resultInfo, issuer_url: issuerUrl };
  return buildResponXml({ ...fields, encryption_data: signMessage('authoriseResponse', fields, account.signKey, ctx.options.recipes) });
}

/** A card from the request, or the masked card and behaviour behind a stored token. */
function cardOf(ctx: SandboxContext, account: SandboxAccount, request: { card: string; token_id?: string | undefined; expiration_month?: string | undefined; expiration_year?: string | undefined; security_code?: string | undefined }): CheckedCard {
  if (request.card === '') {
    const token = ctx.ledger.tokens.get(request.token_id ?? '');
    if (token?.merchantId !== account.merchantId || token.accountId !== account.accountId) throw badInput('token_id', 'token_id is not a token of this account');
    return { masked: token.card, behaviour: token.behaviour as CheckedCard['behaviour'] };
  }
  const checked = checkCard(
    { card: request.card, expirationMonth: request.expiration_month ?? '', expirationYear: request.expiration_year ?? '', securityCode: request.security_code ?? '' },
    new Date(),
  );
  if (isCardProblem(checked)) throw badInput(checked.field, checked.message);
  return checked;
}

function authoriseDirect(ctx: SandboxContext, req: Request, fields: Record<string, unknown>, account: SandboxAccount): Reply {
  const request = validate(directPaymentRequestSchema, fields);
  const amount = amountOf(request.amount, request.currency, 'amount');
  assertNewOrder(ctx, account, request.order_no);
  const card = cardOf(ctx, account, request);
  const tx = newTransaction(account, {
    orderNo: request.order_no, kind: 'card', paymentMethod: 'CARD', amount, currency: request.currency,
    notifyUrl: request.notify_url, details: pickDetails(request),
  });
  tx.card = card.masked;
  tx.tokenId = request.card === '' ? (request.token_id ?? '') : '';
  tx.pending = { subscription: subscriptionRequest(request.subscription, request.amount), tokenize: request.token_flag === 'YES', behaviour: card.behaviour };
  let issuerUrl: string | undefined;
  ctx.ledger.database.atomically(() => {
    const outcome = applyCardBehaviour(ctx, tx, account, card.behaviour, request.open3d === 'do3DS');
    if (outcome === 'challenge') issuerUrl = baseUrlOf(ctx, req) + issuerPath('3ds', openSession(ctx, '3ds', tx.transactionId).id);
    ctx.ledger.saveTransaction(tx);
  });
  if (issuerUrl === undefined) notify(ctx, tx, 'payment');
  return xmlReply(responXml(ctx, account, tx, issuerUrl, true));
}

function authoriseApm(ctx: SandboxContext, req: Request, fields: Record<string, unknown>, account: SandboxAccount): Reply {
  const request = validate(apmPaymentRequestSchema, fields);
  const method = findApmMethod(request.payment_method);
  if (method === undefined) throw badInput('payment_method', `payment_method ${request.payment_method} is not offered; optimise lists the methods`);
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

export function handleAuthorise(ctx: SandboxContext, req: Request, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'authorise', fields);
  return str(fields, 'payment_method') === '' ? authoriseDirect(ctx, req, fields, account) : authoriseApm(ctx, req, fields, account);
}
