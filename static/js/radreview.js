// Small page behaviours that htmx does not cover. Kept framework-free on purpose.
document.addEventListener("htmx:responseError", (event) => {
  const status = event.detail.xhr.status;
  const box = document.createElement("div");
  box.className = "error";
  box.setAttribute("role", "alert");
  box.textContent = status === 403 ? "You are not allowed to do that." : `The server answered ${status}; try again.`;
  document.getElementById("main")?.prepend(box);
});

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
