// Keeps a running batch job's page current without reloading it (focus and scroll stay put):
// fetches the page every data-refresh-seconds, copies the status, progress and each order's row,
// and announces the progress through the page's role="status" region. A "Pause updates" button
// stops it (WCAG 2.2.2); it stops by itself when the job no longer runs. Without JavaScript the
// page's Refresh link does the same by hand.
(function () {
  'use strict';
  var box = document.querySelector('[data-job-refresh]');
  var live = document.getElementById('job-announce');
  if (!box || !live || !window.fetch || !window.DOMParser) return;
  var seconds = Number(box.getAttribute('data-refresh-seconds')) || 2;
  var timer = 0;
  var paused = false;
  var stopped = false;

  var note = box.querySelector('[data-job-note]');
  if (note) note.textContent = 'Progress updates every ' + seconds + ' seconds while the job runs.';
  var button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Pause updates';
  button.setAttribute('aria-pressed', 'false');
  box.appendChild(button);
  button.addEventListener('click', function () {
    paused = !paused;
    button.setAttribute('aria-pressed', String(paused));
    button.textContent = paused ? 'Resume updates' : 'Pause updates';
    live.textContent = paused ? 'Updates paused.' : 'Updates resumed.';
    if (!paused) schedule(0);
  });

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(update, ms);
  }

  function copy(doc, id) {
    var from = doc.getElementById(id);
    var to = document.getElementById(id);
    if (!from || !to) return;
    to.innerHTML = from.innerHTML;
    var status = from.getAttribute('data-status');
    if (status !== null) to.setAttribute('data-status', status);
  }

  function copyRows(doc) {
    var rows = doc.querySelectorAll('tr[data-order]');
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var mine = document.querySelector('tr[data-order="' + CSS.escape(row.getAttribute('data-order') || '') + '"]');
      if (!mine) continue;
      mine.className = row.className;
      mine.setAttribute('data-status', row.getAttribute('data-status') || '');
      // Only the status and result cells: the order link keeps its focus.
      for (var c = 1; c < row.cells.length && c < mine.cells.length; c++) mine.cells[c].textContent = row.cells[c].textContent;
    }
  }

  function progressText() {
    var count = document.querySelector('#job-count .job-counts');
    return count ? count.textContent.replace(/\s+/g, ' ').trim() : '';
  }

  function apply(doc) {
    var before = progressText();
    copy(doc, 'job-status');
    copy(doc, 'job-count');
    copyRows(doc);
    if (!doc.querySelector('[data-job-refresh]')) {
      stopped = true;
      copy(doc, 'job-state');
      var hadFocus = box.contains(document.activeElement);
      box.textContent = '';
      box.removeAttribute('data-job-refresh');
      var status = document.getElementById('job-status');
      live.textContent = 'Job ' + (status ? status.textContent.trim() : 'stopped') + ': ' + progressText();
      if (hadFocus) document.getElementById('job-progress').focus();
      return;
    }
    if (progressText() !== before) live.textContent = progressText();
    schedule(seconds * 1000);
  }

  function update() {
    if (paused || stopped) return;
    fetch(window.location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' }, redirect: 'error' })
      .then(function (res) {
        if (!res.ok) throw new Error(String(res.status));
        return res.text();
      })
      .then(function (html) {
        if (!paused) apply(new DOMParser().parseFromString(html, 'text/html'));
      })
      .catch(function () {
        stopped = true;
        live.textContent = 'Updates stopped: the page could not be fetched. Use Refresh to try again.';
      });
  }

  schedule(seconds * 1000);
})();
