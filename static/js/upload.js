// The upload page: check sizes before sending (the server checks again while the body
// streams), refuse images without a report where nothing can draft one, and show a progress
// bar while the files go up.
(() => {
  "use strict";

  const mb = (bytes) => `${Math.round(bytes / (1024 * 1024))} MB`;
  const TEXT_REPORT = /\.txt$/i;

  function problem(form) {
    const files = Array.from(form.querySelector("input[type=file][name=files]")?.files || []);
    const maxFile = Number(form.dataset.maxFileBytes);
    const maxStudy = Number(form.dataset.maxStudyBytes);
    const maxFiles = Number(form.dataset.maxFiles);
    if (files.length > maxFiles) return `Too many files: at most ${maxFiles} per upload.`;
    const big = files.find((file) => file.size > maxFile);
    if (big) return `${big.name}: the file is ${mb(big.size)}; the limit per file is ${mb(maxFile)}.`;
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (total > maxStudy) return `The upload is ${mb(total)}; the limit per study is ${mb(maxStudy)}.`;
    const report = form.querySelector("[name=report_text]")?.value.trim();
    const candidate = form.querySelector("[name=candidate_text]")?.value.trim();
    const images = files.filter((file) => !TEXT_REPORT.test(file.name));
    const reportFile = files.some((file) => TEXT_REPORT.test(file.name));
    if (form.dataset.drafting === "no" && images.length && !report && !reportFile && !candidate) {
      return "Drafting is not set up on this site: add the report to these images " +
        "(paste it or add its .txt file), or ask an admin to set up report drafting.";
    }
    return "";
  }

  // The answer's page in place of this one; false when the answer is no page of ours.
  function showPage(html) {
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("main");
    const main = document.getElementById("main");
    if (!fresh || !main) return false;
    main.replaceWith(fresh);
    start();
    return true;
  }

  function send(form) {
    const bar = document.getElementById("upload-progress");
    const text = document.getElementById("upload-progress-text");
    const button = document.getElementById("upload-submit");
    const request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.upload.addEventListener("progress", (event) => {
      if (!event.lengthComputable) return;
      const percent = Math.round((100 * event.loaded) / event.total);
      bar.value = percent;
      text.textContent = percent < 100 ? `Uploading… ${percent}%` : "Checking the files…";
    });
    request.addEventListener("load", () => {
      const url = new URL(request.responseURL, window.location.href);
      if (request.status < 300 && url.pathname !== new URL(form.action, window.location.href).pathname) {
        window.location.assign(url.href);
      } else if (!showPage(request.responseText)) {
        // A refusal in plain text or a proxy's error page: its words, never "Checking…" forever.
        const plain = (request.getResponseHeader("Content-Type") || "").startsWith("text/plain");
        text.textContent = `The server answered ${request.status}` +
          (plain && request.responseText ? `: ${request.responseText}` : "; try again.");
        button.disabled = false;
      }
    });
    request.addEventListener("error", () => {
      text.textContent = "The upload was interrupted; nothing was stored. Try again.";
      button.disabled = false;
    });
    bar.hidden = false;
    bar.value = 0;
    button.disabled = true;
    request.send(new FormData(form));
  }

  function start() {
    const form = document.getElementById("upload-form");
    if (!form) return;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const box = document.getElementById("upload-check");
      const message = problem(form);
      box.hidden = !message;
      box.textContent = message;
      if (!message) send(form);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
