// The board's live part: ask /board whether anything changed (a 304 costs the server
// one `git for-each-ref`), swap in the new body when it did, and count running jobs'
// elapsed time on between answers. No framework: the page needs nothing more, and a
// strict Content-Security-Policy allows only this file.
(function () {
  "use strict";
  var board = document.getElementById("board");
  if (!board) { return; }
  var url = board.getAttribute("data-live-url");
  var etag = board.getAttribute("data-etag");
  var every = Number(board.getAttribute("data-poll-ms")) || 1000;
  var live = document.getElementById("live");

  function format(seconds) {
    if (seconds < 60) { return (seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)) + "s"; }
    var minutes = Math.floor(Math.round(seconds) / 60), secs = Math.round(seconds) % 60;
    if (minutes < 60) { return minutes + "m " + (secs < 10 ? "0" : "") + secs + "s"; }
    var hours = Math.floor(minutes / 60); minutes = minutes % 60;
    return hours + "h " + (minutes < 10 ? "0" : "") + minutes + "m";
  }

  function tick() {
    var now = Date.now() / 1000;
    var cells = board.querySelectorAll("[data-since]");
    for (var i = 0; i < cells.length; i++) {
      cells[i].textContent = format(Math.max(0, now - Number(cells[i].getAttribute("data-since"))));
    }
  }

  function poll() {
    var headers = etag ? { "If-None-Match": etag } : {};
    fetch(url, { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 200) {
          etag = response.headers.get("ETag");
          return response.text().then(function (html) {
            // The server rendered and escaped it; nothing in it can run (the policy
            // allows no inline script, and innerHTML never runs a <script> anyway).
            board.innerHTML = html;
            tick();
          });
        }
        if (response.status !== 304) { throw new Error("HTTP " + response.status); }
      })
      .then(function () {
        live.textContent = "live, checked " + new Date().toLocaleTimeString();
        live.className = "";
      })
      .catch(function (error) {
        live.textContent = "not reachable (" + error.message + "), retrying";
        live.className = "offline";
      })
      .then(function () { window.setTimeout(poll, every); });
  }

  window.setInterval(tick, 1000);
  window.setTimeout(poll, every);
})();
