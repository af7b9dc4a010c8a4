/**
 * The demo's staff sign-in in front of the kit's admin: `/admin/login` checks one user name and
 * password (user `staff`, password `demo` unless DEMO_ADMIN_PASSWORD says otherwise) and sets a
 * signed, expiring cookie scoped to `/admin`; `authorize(req)` reads it. A real shop plugs its
 * own staff accounts into `authorize` instead.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import type { Staff } from '../../../server/index.js';
import type { SignedCookies } from '../cookies.js';
import { pageSecurity, sameOriginPosts } from '../security.js';
import type { Render } from '../views.js';

export const STAFF_COOKIE = 'demo_staff';
export const ADMIN_PATH = '/admin';
const SIGN_IN_MS = 8 * 60 * 60 * 1000;

export interface AdminCredentials {
  user: string;
  password: string;
}

const staffCookieSchema = z.strictObject({ id: z.string().min(1).max(50), exp: z.int() });

function sameText(a: string, b: string): boolean {
  // Hash first so the comparison takes the same time whatever the lengths.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function createStaffAuth(cookies: SignedCookies, credentials: AdminCredentials) {
  function authorize(req: Request): Staff | null {
    const claim = cookies.read(req, STAFF_COOKIE, staffCookieSchema);
    if (claim === null || claim.exp <= Date.now()) return null;
    return { id: claim.id, name: `${claim.id} (demo)` };
  }

  function routes(render: Render): Router {
    const router = Router();
    const form = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 5 });
    router.use(`${ADMIN_PATH}/login`, pageSecurity(), sameOriginPosts());
    router.use(`${ADMIN_PATH}/logout`, sameOriginPosts());

    router.get(`${ADMIN_PATH}/login`, (req, res) => {
      render(res, 'login', { title: 'Staff sign-in', signedIn: authorize(req), user: credentials.user, error: null });
    });

    router.post(`${ADMIN_PATH}/login`, form, (req, res) => {
      const body = z.object({ user: z.string().max(100), password: z.string().max(200) }).safeParse(req.body);
      const ok = body.success && sameText(body.data.user, credentials.user) && sameText(body.data.password, credentials.password);
      if (!ok) {
        render(res, 'login', { title: 'Staff sign-in', signedIn: null, user: body.success ? body.data.user : '', error: 'That user name and password do not match.' }, 401);
        return;
      }
      cookies.write(req, res, STAFF_COOKIE, { id: credentials.user, exp: Date.now() + SIGN_IN_MS }, { maxAgeMs: SIGN_IN_MS, path: ADMIN_PATH });
      res.redirect(303, `${ADMIN_PATH}/`);
    });

    router.post(`${ADMIN_PATH}/logout`, (_req, res) => {
      cookies.clear(res, STAFF_COOKIE, ADMIN_PATH);
      res.redirect(303, `${ADMIN_PATH}/login`);
    });
    return router;
  }

  return { authorize, routes };
}
