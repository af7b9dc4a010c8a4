// Fills the device-data hidden inputs of every form marked data-device-data. Plain ES2017, no
// build step, nothing inline and no eval, so it runs under the checkout's strict CSP. Every step
// is optional: whatever fails stays empty and the server falls back to its defaults.
(function () {
  'use strict';

  var COOKIE = 'checkout_device';
  var SESSION_KEY = 'checkout_session';

  function randomId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  function readCookie(name) {
    var parts = document.cookie ? document.cookie.split(';') : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf('=');
      if (eq > 0 && parts[i].slice(0, eq).trim() === name) return parts[i].slice(eq + 1).trim();
    }
    return '';
  }

  // cookie_old: the id this browser already had (empty on a first visit);
  // cookie_new: the id it has from now on (fresh on a first visit, else the same).
  function deviceCookie() {
    var old = readCookie(COOKIE);
    if (!/^[a-f0-9]{32}$/.test(old)) old = '';
    var now = old || randomId();
    var secure = location.protocol === 'https:' ? '; Secure' : '';
    document.cookie = COOKIE + '=' + now + '; Max-Age=31536000; Path=/; SameSite=Lax' + secure;
    return { cookieOld: old, cookieNew: readCookie(COOKIE) === now ? now : '' };
  }

  function sessionId() {
    try {
      var id = window.sessionStorage.getItem(SESSION_KEY);
      if (!id || !/^[a-f0-9]{32}$/.test(id)) {
        id = randomId();
        window.sessionStorage.setItem(SESSION_KEY, id);
      }
      return id;
    } catch (e) {
      return '';
    }
  }

  function os() {
    var ua = navigator.userAgent;
    var data = navigator.userAgentData;
    if (data && data.platform) return String(data.platform).slice(0, 50);
    if (/Windows/.test(ua)) return 'Windows';
    if (/Android/.test(ua)) return 'Android';
    if (/iPhone|iPad|iPod/.test(ua)) return 'iOS';
    if (/CrOS/.test(ua)) return 'ChromeOS';
    if (/Mac OS X/.test(ua)) return 'macOS';
    if (/Linux/.test(ua)) return 'Linux';
    return '';
  }

  function browser() {
    var ua = navigator.userAgent;
    var rules = [[/Edg\//, 'Edge'], [/OPR\//, 'Opera'], [/SamsungBrowser\//, 'Samsung Internet'],
      [/Firefox\/|FxiOS\//, 'Firefox'], [/Chrome\/|CriOS\//, 'Chrome'], [/Safari\//, 'Safari']];
    for (var i = 0; i < rules.length; i++) if (rules[i][0].test(ua)) return rules[i][1];
    return '';
  }

  // EMV 3-D Secure window sizes; the largest that fits the viewport, full screen on small ones.
  function challengeWindowSize() {
    var w = window.innerWidth || 0;
    var h = window.innerHeight || 0;
    if (w >= 600 && h >= 600) return '03';
    if (w >= 600 && h >= 400) return '04';
    if (w >= 390 && h >= 400) return '02';
    if (w >= 250 && h >= 400) return '01';
    return '05';
  }

  function stableTraits() {
    var tz = '';
    try { tz = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { tz = ''; }
    return [navigator.userAgent, navigator.language, (navigator.languages || []).join(','), tz,
      screen.width + 'x' + screen.height, screen.colorDepth, navigator.hardwareConcurrency || '',
      navigator.maxTouchPoints || 0, navigator.platform || ''].join('|');
  }

  function fingerprint() {
    var subtle = window.crypto && window.crypto.subtle;
    // crypto.subtle exists only in secure contexts (https, localhost).
    if (!subtle || !window.TextEncoder) return Promise.resolve('');
    return subtle.digest('SHA-256', new TextEncoder().encode(stableTraits())).then(function (buf) {
      return Array.prototype.map.call(new Uint8Array(buf), function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
    }, function () { return ''; });
  }

  function set(form, name, value) {
    var input = form.querySelector('input[type="hidden"][name="' + name + '"]');
    if (input && value !== undefined && value !== null) input.value = String(value);
  }

  function fill(form, values) {
    for (var name in values) if (Object.prototype.hasOwnProperty.call(values, name)) set(form, name, values[name]);
  }

  function run() {
    var forms = document.querySelectorAll('form[data-device-data]');
    if (!forms.length) return;
    var cookies = { cookieOld: '', cookieNew: '' };
    try { cookies = deviceCookie(); } catch (e) { /* cookies blocked: leave empty */ }
    var values = {
      os: os(),
      browser: browser(),
      browser_lang: navigator.language || '',
      time_zone: String(new Date().getTimezoneOffset()),
      resolution: screen.width + 'x' + screen.height,
      color_depth: String(screen.colorDepth || ''),
      cookie_old: cookies.cookieOld,
      cookie_new: cookies.cookieNew,
      session_id: sessionId(),
      challenge_window_size: challengeWindowSize()
    };
    for (var i = 0; i < forms.length; i++) fill(forms[i], values);
    fingerprint().then(function (hash) {
      for (var j = 0; j < forms.length; j++) set(forms[j], 'device_fingerprint', hash);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run);
  else run();
})();
