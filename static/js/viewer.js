// Image viewer of the study page: window/level presets rendered on demand by the server
// (workers.imaging presets, cached), and zoom with the buttons, the mouse wheel or the
// keyboard (+, -, 0 while the image has focus), drag or the arrows (focused) to pan. No global
// keys: the review's shortcuts stay as they are.
(function () {
  "use strict";
  const MIN = 1, MAX = 8, STEP = 1.25, PAN = 0.05; // PAN: of the stage's size per arrow press
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  function setup(figure) {
    if (figure.dataset.viewerReady) return;
    figure.dataset.viewerReady = "1";
    const stage = figure.querySelector(".viewer-stage");
    const img = stage.querySelector("img");
    const output = figure.querySelector(".viewer-scale");
    const template = figure.dataset.srcTemplate;
    const placeholder = figure.dataset.placeholder;
    let scale = 1, x = 0, y = 0, preset = "default", drag = null;

    function source() {
      const side = scale > 1.5 ? 2048 : 1024;
      return template.replace(placeholder, preset) + "?side=" + side;
    }
    function clamp() {
      const w = stage.clientWidth, h = stage.clientHeight;
      const maxX = (w * (scale - 1)) / 2, maxY = (h * (scale - 1)) / 2;
      x = Math.max(-maxX, Math.min(maxX, x));
      y = Math.max(-maxY, Math.min(maxY, y));
    }
    function apply() {
      clamp();
      img.style.transform = "translate(" + x + "px," + y + "px) scale(" + scale + ")";
      output.value = Math.round(scale * 100) + "%";
      stage.classList.toggle("zoomed", scale > 1);
      if (scale > 1.5 && !img.src.includes("side=2048")) img.src = source();
    }
    function zoom(factor) {
      scale = Math.max(MIN, Math.min(MAX, scale * factor));
      if (scale === MIN) { x = 0; y = 0; }
      apply();
    }

    figure.querySelectorAll(".viewer-preset").forEach(function (button) {
      button.addEventListener("click", function () {
        preset = button.dataset.preset;
        figure.querySelectorAll(".viewer-preset").forEach(function (other) {
          other.setAttribute("aria-pressed", other === button ? "true" : "false");
        });
        stage.classList.add("loading");
        img.src = source();
      });
    });
    img.addEventListener("load", function () { stage.classList.remove("loading"); });
    img.addEventListener("error", function () { stage.classList.remove("loading"); });
    figure.querySelectorAll("[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        const what = button.dataset.zoom;
        if (what === "in") zoom(STEP);
        else if (what === "out") zoom(1 / STEP);
        else { scale = 1; x = 0; y = 0; apply(); }
      });
    });
    stage.addEventListener("wheel", function (event) {
      event.preventDefault();
      zoom(event.deltaY < 0 ? STEP : 1 / STEP);
    }, { passive: false });
    stage.addEventListener("keydown", function (event) {
      if (event.key === "+" || event.key === "=") { zoom(STEP); event.preventDefault(); }
      else if (event.key === "-") { zoom(1 / STEP); event.preventDefault(); }
      else if (event.key === "0") { scale = 1; x = 0; y = 0; apply(); event.preventDefault(); }
      else if (ARROWS[event.key] && scale > 1) {
        x += ARROWS[event.key][0] * PAN * stage.clientWidth;
        y += ARROWS[event.key][1] * PAN * stage.clientHeight;
        apply();
        event.preventDefault();
      }
      event.stopPropagation();
    });
    stage.addEventListener("pointerdown", function (event) {
      if (scale <= 1) return;
      drag = { id: event.pointerId, x: event.clientX - x, y: event.clientY - y };
      stage.setPointerCapture(event.pointerId);
    });
    stage.addEventListener("pointermove", function (event) {
      if (!drag || drag.id !== event.pointerId) return;
      x = event.clientX - drag.x;
      y = event.clientY - drag.y;
      apply();
    });
    function release() { drag = null; }
    stage.addEventListener("pointerup", release);
    stage.addEventListener("pointercancel", release);
    stage.addEventListener("dblclick", function () { scale = 1; x = 0; y = 0; apply(); });
    apply();
  }

  function setupAll(root) {
    (root || document).querySelectorAll("figure.viewer").forEach(setup);
  }
  document.addEventListener("DOMContentLoaded", function () { setupAll(document); });
  document.addEventListener("htmx:afterSettle", function (event) { setupAll(event.target); });
})();
