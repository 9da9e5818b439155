// Small page behaviours that htmx does not cover. Kept framework-free on purpose.
// Failed requests. An outage (503: the database or the job queue is unreachable, or no answer
// at all) shows ONE notice that retries by itself and goes away when the server answers again;
// the page's polls keep running meanwhile and do not each add a box. Other errors share one box.
(() => {
  let outage = null;  // {notice, timer} while the server is unreachable

  const main = () => document.getElementById("main") || document.body;

  function showOutage(retryAfter) {
    const seconds = Math.max(1, Number(retryAfter) || 5);
    if (!outage) {
      const notice = document.createElement("div");
      notice.id = "outage-notice";
      notice.className = "error";
      notice.setAttribute("role", "alert");
      notice.textContent = "RadReview cannot reach its database or job queue right now. "
        + "Nothing you saved is lost; reconnecting by itself…";
      main().prepend(notice);
      outage = {notice, timer: null};
    }
    // Pages without polls still find out when the server is back.
    clearTimeout(outage.timer);
    outage.timer = setTimeout(probe, seconds * 1000);
  }

  function endOutage() {
    if (!outage) return;
    clearTimeout(outage.timer);
    outage.notice.remove();
    outage = null;
  }

  async function probe() {
    try {
      const answer = await fetch("/health/", {
        headers: {"X-RadReview-Poll": "1"}, credentials: "same-origin",
      });
      if (answer.status === 503) return showOutage(answer.headers.get("Retry-After"));
      if (answer.ok) return endOutage();
    } catch (error) { /* no answer at all: still out */ }
    showOutage();
  }

  function showError(status) {
    let box = document.getElementById("request-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "request-error";
      box.className = "error";
      box.setAttribute("role", "alert");
      main().prepend(box);
    }
    box.textContent = status === 403 ? "You are not allowed to do that." : `The server answered ${status}; try again.`;
  }

  document.addEventListener("htmx:responseError", (event) => {
    const xhr = event.detail.xhr;
    if (xhr.status === 503) showOutage(xhr.getResponseHeader("Retry-After"));
    else showError(xhr.status);
  });
  document.addEventListener("htmx:sendError", () => showOutage());
  document.addEventListener("htmx:afterRequest", (event) => {
    if (event.detail.successful) endOutage();
  });
})();

// Idle logoff (radreview/accounts/idle.py). The server signs a session out after
// data-idle-seconds without a request made by the person; polls say they are polls so they do
// not count. Here: warn data-idle-warning-seconds before, offer to stay, reload when it is over
// (the server then shows the login page with the reason).
(() => {
  const body = document.body;
  const idle = Number(body.dataset.idleSeconds || 0);
  if (!idle) return;
  const warnBefore = Number(body.dataset.idleWarningSeconds || 0);
  const banner = document.getElementById("idle-warning");
  const countdown = document.getElementById("idle-countdown");
  let lastActivity = Date.now();

  document.addEventListener("htmx:configRequest", (event) => {
    const trigger = event.detail.elt.getAttribute("hx-trigger") || "";
    if (trigger.trim().startsWith("every")) {
      event.detail.headers["X-RadReview-Poll"] = "1";
    } else {
      lastActivity = Date.now();
      if (banner) banner.hidden = true;
    }
  });

  setInterval(() => {
    const left = idle - (Date.now() - lastActivity) / 1000;
    if (left <= -2) {  // a little after the server's deadline, so the reload finds it passed
      window.location.reload();
    } else if (banner && left <= warnBefore && left > 0) {
      const minutes = Math.floor(left / 60);
      const seconds = Math.floor(left % 60);
      countdown.textContent = minutes ? `${minutes} min ${seconds} s` : `${seconds} s`;
      banner.hidden = false;
    }
  }, 1000);
})();
