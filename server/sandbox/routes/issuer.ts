/**
 * The simulated issuer: the 3-D Secure challenge page and the APM issuer page. The browser
 * arrives by POST (or GET), the tester picks an outcome, the result is notified and the browser
 * is sent back to return_url with an auto-submitting POST form.
 */
import type { Express } from 'express';
import { findApmMethod } from '../apm-methods.js';
import { baseUrlOf, findAccount, type SandboxContext } from '../context.js';
import { param, SandboxHttpError, str } from '../http.js';
import { pageAmount, type Pages } from '../pages.js';
import { approve, notify, setStatus, STATUS } from '../payments.js';
import { closeSession, findSession, issuerPath } from '../sessions.js';
import type { SandboxAccount, SandboxSession, SandboxTransaction, SessionKind } from '../types.js';
import { ORDER_STATUS, RESULT_INFO } from '../wire/codes.js';
import { backToShop, page, pageLocale, PageRefusal, urlField } from './pages-common.js';

interface Open {
  session: SandboxSession;
  tx: SandboxTransaction;
  account: SandboxAccount;
}

const gone = (): PageRefusal => new PageRefusal(409, 'I0001', 'id', 'This payment step is already complete.', 'sandbox.alreadyComplete');

function openFor(ctx: SandboxContext, kind: SessionKind, id: string): Open {
  const session = findSession(ctx, kind, id);
  const tx = session === undefined ? undefined : ctx.ledger.tx.get(session.transactionId);
  const account = tx === undefined ? undefined : findAccount(ctx, tx.merchantId, tx.accountId);
  if (session === undefined || tx === undefined || account === undefined) throw new PageRefusal(404, 'I0404', 'id', 'No such payment page.', 'sandbox.noSuchPage');
  if (session.state !== 'open' || tx.orderStatus !== ORDER_STATUS.requiresAction) throw gone();
  return { session, tx, account };
}

/** The merchant may add its return_url and notify_url when it sends the browser here. */
function takeUrls(ctx: SandboxContext, tx: SandboxTransaction, fields: Readonly<Record<string, unknown>>): void {
  const returnUrl = urlField(fields, 'return_url');
  const notifyUrl = urlField(fields, 'notify_url');
  if (returnUrl === '' && notifyUrl === '') return;
  if (returnUrl !== '') tx.returnUrl = returnUrl;
  if (notifyUrl !== '') tx.notifyUrl = notifyUrl;
  ctx.ledger.saveTransaction(tx);
}

export function mountIssuerPages(app: Express, ctx: SandboxContext, pages: Pages): void {
  const show3ds = page(ctx, pages, (req, fields) => {
    const { tx, account } = openFor(ctx, '3ds', param(req, 'id'));
    takeUrls(ctx, tx, fields);
    const decisionUrl = `${baseUrlOf(ctx, req)}${issuerPath('3ds', param(req, 'id'))}/decision`;
    const lang = pageLocale(req, tx);
    return pages.render(
      'issuer-3ds',
      {
        lang, title: { key: 'sandbox.threeDsTitle' }, merchant: `${account.merchantId} / ${account.accountId}`, orderNo: tx.orderNo,
        amount: pageAmount(tx.amount, tx.currency, lang), card: tx.card, decisionUrl,
      },
      { formTargets: [decisionUrl] },
    );
  });
  app.get('/issuer/3ds/:id', show3ds);
  app.post('/issuer/3ds/:id', show3ds);

  app.post(
    '/issuer/3ds/:id/decision',
    page(ctx, pages, (req, fields) => {
      const decision = str(fields, 'decision');
      if (decision !== 'pass' && decision !== 'fail') throw new SandboxHttpError(400, 'I0001', 'decision', 'decision must be pass or fail');
      const { session, tx, account } = openFor(ctx, '3ds', param(req, 'id'));
      ctx.ledger.database.atomically(() => {
        if (decision === 'pass') {
          tx.threedsResult = 'Challenge: authenticated';
          approve(ctx, tx, account, '3-D Secure passed');
        } else {
          tx.threedsResult = 'Challenge: authentication failed';
          setStatus(tx, STATUS.declined(RESULT_INFO.challengeFailed), '3-D Secure failed');
          tx.pending = null;
        }
        ctx.ledger.saveTransaction(tx);
        closeSession(ctx, session);
      });
      notify(ctx, tx, 'payment');
      return backToShop(ctx, pages, req, tx);
    }),
  );

  const showApm = page(ctx, pages, (req, fields) => {
    const { tx, account } = openFor(ctx, 'apm', param(req, 'id'));
    takeUrls(ctx, tx, fields);
    const decisionUrl = `${baseUrlOf(ctx, req)}${issuerPath('apm', param(req, 'id'))}/decision`;
    const lang = pageLocale(req, tx);
    const methodName = findApmMethod(tx.paymentMethod)?.name ?? tx.paymentMethod;
    return pages.render(
      'issuer-apm',
      {
        lang, title: { key: 'sandbox.apmTitle', vars: { method: methodName } }, merchant: `${account.merchantId} / ${account.accountId}`, orderNo: tx.orderNo,
        amount: pageAmount(tx.amount, tx.currency, lang), method: tx.paymentMethod, methodName, decisionUrl,
      },
      { formTargets: [decisionUrl] },
    );
  });
  app.get('/issuer/apm/:id', showApm);
  app.post('/issuer/apm/:id', showApm);

  app.post(
    '/issuer/apm/:id/decision',
    page(ctx, pages, (req, fields) => {
      const decision = str(fields, 'decision');
      if (decision !== 'approve' && decision !== 'decline' && decision !== 'abandon') {
        throw new SandboxHttpError(400, 'I0001', 'decision', 'decision must be approve, decline or abandon');
      }
      const { session, tx, account } = openFor(ctx, 'apm', param(req, 'id'));
      ctx.ledger.database.atomically(() => {
        if (decision === 'approve') approve(ctx, tx, account, 'approved at the issuer');
        else if (decision === 'decline') setStatus(tx, STATUS.declined(RESULT_INFO.declined), 'declined at the issuer');
        else setStatus(tx, STATUS.cancelled(RESULT_INFO.abandoned), 'abandoned at the issuer');
        ctx.ledger.saveTransaction(tx);
        closeSession(ctx, session);
      });
      notify(ctx, tx, 'payment');
      return backToShop(ctx, pages, req, tx);
    }),
  );
}
