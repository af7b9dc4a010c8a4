/**
 * Coarse reading of a User-Agent header: enough for the gateway's device_type and for os/browser
 * defaults when the browser script did not run. Never used for any security decision.
 */

const MOBILE_RE = /Mobi|Android|iPhone|iPad|iPod|Windows Phone|IEMobile|Opera Mini|BlackBerry|Silk\//i;

export function deviceTypeOf(userAgent: string): 'PC' | 'MOBILE' {
  return MOBILE_RE.test(userAgent) ? 'MOBILE' : 'PC';
}

const OS_RULES: readonly (readonly [RegExp, string])[] = [
  [/Windows Phone/i, 'Windows Phone'],
  [/Windows/i, 'Windows'],
  [/Android/i, 'Android'],
  [/iPhone|iPad|iPod/i, 'iOS'],
  [/CrOS/i, 'ChromeOS'],
  [/Mac OS X|Macintosh/i, 'macOS'],
  [/Linux/i, 'Linux'],
];

const BROWSER_RULES: readonly (readonly [RegExp, string])[] = [
  [/Edg(?:e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];

export function osOf(userAgent: string): string {
  return OS_RULES.find(([re]) => re.test(userAgent))?.[1] ?? '';
}

export function browserOf(userAgent: string): string {
  return BROWSER_RULES.find(([re]) => re.test(userAgent))?.[1] ?? '';
}

/** The first language tag of an Accept-Language header (`fr-CH, fr;q=0.9` → `fr-CH`). */
export function firstLanguage(acceptLanguage: string): string {
  const first = acceptLanguage.split(',')[0]?.split(';')[0]?.trim() ?? '';
  return /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/.test(first) ? first : '';
}
