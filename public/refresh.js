// Reloads a page that waits for a payment to be confirmed, every data-refresh-seconds seconds.
// Loaded from /assets with the CSP nonce. Without JavaScript the page's <noscript> meta refresh
// does the same; the page always offers a "check again" link too.
(function () {
  'use strict';
  var marked = document.querySelector('[data-refresh-seconds]');
  if (!marked) return;
  var seconds = Number(marked.getAttribute('data-refresh-seconds'));
  if (seconds > 0) setTimeout(function () { window.location.reload(); }, seconds * 1000);
})();
