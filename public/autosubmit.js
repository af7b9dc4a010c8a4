// Submits the first form marked data-autosubmit as soon as the page loads (3-D Secure issuer,
// hosted payment page). Loaded from /assets with the CSP nonce; without JavaScript the page's
// <noscript> Continue button does the same.
(function () {
  'use strict';
  function go() {
    var form = document.querySelector('form[data-autosubmit]');
    if (!form || form.getAttribute('data-submitted')) return;
    form.setAttribute('data-submitted', '1');
    form.submit();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go);
  else go();
})();
