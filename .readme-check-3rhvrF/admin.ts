// admin.ts
import express from 'express';
import { createAdminRouter, createSqliteAdminStore } from 'acquiring-checkout-kit';
import { kit } from './kit.js';

const admin = createAdminRouter({
  kit,
  // Who is signed in, from your own staff sign-in; null means nobody. Here a single sign-on
  // proxy in front of /admin sets the header (never trust it without such a proxy).
  authorize: (req) => {
    const id = req.get('x-staff-id');
    return id ? { id } : null;
  },
  csrfSecret: process.env.ADMIN_CSRF_SECRET ?? '', // ≥ 32 random characters
  adminStore: createSqliteAdminStore({ path: 'data/admin.sqlite' }),
});

const app = express();
app.use('/checkout', kit.router);
app.use('/admin', admin);
app.listen(3000);
