import { describe, expect, it } from 'vitest';
import { newNotificationId } from '../../../server/sandbox/ids.js';

describe('sandbox ids', () => {
  it('name notification deliveries ntf_<uuid v7>, newer ones sorting after older ones', async () => {
    const first = newNotificationId();
    expect(first).toMatch(/^ntf_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(newNotificationId() > first).toBe(true);
  });
});
