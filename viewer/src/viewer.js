// The review page's diagnostic viewer: Cornerstone3D stack viewports reading RadReview's own
// WADO-RS (/api/dicomweb), one per view (PA and lateral side by side, each canvas following
// its pane: the reading room's left column, full screen). Window/level drag with presets,
// zoom, pan, invert, length measurement, reset and full screen.
// Keys: the user's single-key shortcuts (w window/level, z zoom, p pan, m measure, i invert,
// 0 reset, f full screen, 1-4 presets by default; none of the review's), and on a focused image
// pan, window/level, zoom and measuring (./keyboard.js).
import * as core from "@cornerstonejs/core";
import * as tools from "@cornerstonejs/tools";
import { init as initLoader } from "@cornerstonejs/dicom-image-loader";
import { utilities as metadata } from "@cornerstonejs/metadata";
import { KeyboardMeasure, onImage, shortcutAction, userKeys } from "./keyboard.js";

const { Enums: ToolEnums } = tools;
const PRIMARY = ToolEnums.MouseBindings.Primary;
const TOOL_CLASSES = [tools.WindowLevelTool, tools.ZoomTool, tools.PanTool, tools.LengthTool];
// Presets as a share of the image's own display range: [centre, width].
const PRESETS = {
  1: ["default", null],
  2: ["lung", [0.35, 0.6]],
  3: ["soft tissue", [0.5, 0.4]],
  4: ["bone", [0.72, 0.45]],
};
const GROUP = "radreview-viewer";
// What the calibration type Cornerstone appends to a length's unit ("mm Proj") means, in words.
// "Proj": only Imager Pixel Spacing, i.e. sizes at the detector, magnified by the projection.
const CALIBRATION_NOTES = {
  Proj: "detector plane",
  ERMF: "corrected for magnification",
  Calibrated: "calibrated",
  Unknown: "calibration unknown",
};
const NO_SPACING = "px (no pixel spacing in the image)";
let started = null;

function start() {
  started ||= (async () => {
    await core.init();
    initLoader({ maxWebWorkers: 1 });
    tools.init();
    TOOL_CLASSES.forEach((Tool) => tools.addTool(Tool));
  })();
  return started;
}

async function loadMetadata(root, item) {
  const base = `${root}/studies/${item.study}/series/${item.series}/instances/${item.sop}`;
  const imageId = `wadors:${base}/frames/1`;
  const answer = await fetch(`${base}/metadata`, { credentials: "same-origin",
                                                   headers: { Accept: "application/dicom+json" } });
  if (!answer.ok) {
    // A 410 says why in words (the image file of this study is missing): show them.
    const detail = (await answer.json().catch(() => ({}))).detail;
    throw new Error(detail || `metadata: ${answer.status}`);
  }
  const [instance] = await answer.json();
  // Cornerstone's own DICOM JSON path: unlike the wadors loader's deprecated provider, its
  // image plane falls back to Imager Pixel Spacing and records the calibration type, so
  // lengths on projection radiographs come out in mm.
  metadata.addDicomWebInstance(imageId, instance);
  return imageId;
}

// A length's unit as the list and the image show it: "mm (detector plane)", "px (no ...)".
function unitLabel(unit) {
  if (!unit || unit.startsWith("px")) return NO_SPACING;
  const [base, kind] = unit.split(" ");
  if (!kind) return base;
  return `${base} (${CALIBRATION_NOTES[kind] || kind})`;
}

function lengthText(data, targetId) {
  const { length, unit } = data.cachedStats?.[targetId] || {};
  if (length === undefined || length === null || Number.isNaN(length)) return undefined;
  return [`${length.toFixed(1)} ${unitLabel(unit)}`];
}

class Viewer {
  constructor(element) {
    this.element = element;
    this.items = JSON.parse(element.dataset.images);
    this.root = element.dataset.wadoRoot;
    this.viewports = [];
    this.defaults = new Map();
    this.status = element.querySelector(".cs-status");
  }

  async open() {
    await start();
    this.engine = new core.RenderingEngine(`engine-${this.element.id}`);
    const panes = Array.from(this.element.querySelectorAll(".cs-pane"));
    this.engine.setViewports(panes.map((pane, index) => ({
      viewportId: `${this.element.id}-${index}`, element: pane.querySelector(".cs-canvas"),
      type: core.Enums.ViewportType.STACK,
    })));
    // Cornerstone takes the panes out of the Tab order; the keyboard needs them in it.
    panes.forEach((pane) => { pane.querySelector(".cs-canvas").tabIndex = 0; });
    this.group = tools.ToolGroupManager.createToolGroup(GROUP);
    TOOL_CLASSES.forEach((Tool) => this.group.addTool(Tool.toolName));
    this.group.setToolConfiguration(tools.LengthTool.toolName, { getTextLines: lengthText });
    this.group.setToolActive(tools.PanTool.toolName,
                             { bindings: [{ mouseButton: ToolEnums.MouseBindings.Auxiliary }] });
    this.group.setToolActive(tools.ZoomTool.toolName,
                             { bindings: [{ mouseButton: ToolEnums.MouseBindings.Secondary }] });
    // Measurements stay drawn (and measured) whichever tool the mouse has: the keyboard's too.
    this.group.setToolPassive(tools.LengthTool.toolName);
    this.choose("WindowLevel");
    for (const [index, item] of this.items.entries()) {
      const viewport = this.engine.getViewport(`${this.element.id}-${index}`);
      this.group.addViewport(viewport.id, this.engine.id);
      const imageId = await loadMetadata(this.root, item);
      await viewport.setStack([imageId]);
      viewport.render();
      this.defaults.set(viewport.id, { ...viewport.getProperties().voiRange });
      this.viewports.push(viewport);
      viewport.element.addEventListener(core.Enums.Events.CAMERA_MODIFIED, () => this.showZoom());
      viewport.element.addEventListener(core.Enums.Events.VOI_MODIFIED, () => this.showWindow());
    }
    core.eventTarget.addEventListener(ToolEnums.Events.ANNOTATION_COMPLETED, () => this.listMeasurements());
    core.eventTarget.addEventListener(ToolEnums.Events.ANNOTATION_MODIFIED, () => this.listMeasurements());
    this.showZoom();
    this.showWindow();
    this.status.textContent = "";
    // Cornerstone sizes its canvases once; the panes change size with the window, full screen
    // and the layout's breakpoints, so the canvases follow them. The observer's first report
    // comes after the layout has settled (the status line above just emptied), so the viewer
    // says it is ready only once its canvases match their panes.
    const resized = new ResizeObserver(() => {
      this.fit();
      this.element.dataset.ready = "true";
    });
    this.viewports.forEach((viewport) => resized.observe(viewport.element));
  }

  // Canvases as large as their panes, each image fitted again with its zoom and pan relative to
  // the fit kept (a fitted image stays fitted, at 100%), window/level untouched.
  fit() {
    const kept = this.viewports.map((viewport) => viewport.getViewPresentation());
    this.engine.resize(true, false);
    this.viewports.forEach((viewport, index) => viewport.setViewPresentation(kept[index]));
    this.engine.render();
  }

  choose(tool) {
    const current = this.group.getActivePrimaryMouseButtonTool();
    if (current) this.group.setToolPassive(current);
    this.group.setToolActive(tools[`${tool}Tool`].toolName, { bindings: [{ mouseButton: PRIMARY }] });
    this.element.querySelectorAll("[data-tool]").forEach((button) => {
      button.setAttribute("aria-pressed", button.dataset.tool === tool ? "true" : "false");
    });
  }

  preset(key) {
    const [name, share] = PRESETS[key];
    for (const viewport of this.viewports) {
      const base = this.defaults.get(viewport.id);
      let range = base;
      if (share) {
        const span = base.upper - base.lower;
        const centre = base.lower + share[0] * span;
        const half = (share[1] * span) / 2;
        range = { lower: centre - half, upper: centre + half };
      }
      viewport.setProperties({ voiRange: range });
      viewport.render();
    }
    this.element.querySelectorAll("[data-preset]").forEach((button) => {
      button.setAttribute("aria-pressed", button.dataset.preset === String(key) ? "true" : "false");
    });
    this.element.dataset.preset = name;
  }

  invert() {
    for (const viewport of this.viewports) {
      viewport.setProperties({ invert: !viewport.getProperties().invert });
      viewport.render();
    }
  }

  zoom(factor) {
    for (const viewport of this.viewports) {
      viewport.setZoom(viewport.getZoom() * factor);
      viewport.render();
    }
  }

  reset() {
    for (const viewport of this.viewports) {
      viewport.resetCamera();
      viewport.resetProperties();
      viewport.setProperties({ voiRange: this.defaults.get(viewport.id) });
      viewport.render();
    }
    tools.annotation.state.removeAllAnnotations();
    this.listMeasurements();
    this.engine.render();
  }

  fullScreen() {
    if (document.fullscreenElement) document.exitFullscreen();
    else this.element.requestFullscreen?.().catch(() => {});
  }

  showZoom() {
    const zoom = this.viewports[0]?.getZoom() ?? 1;
    this.element.querySelector(".cs-zoom").value = `${Math.round(zoom * 100)}%`;
  }

  showWindow() {
    const range = this.viewports[0]?.getProperties().voiRange;
    if (!range) return;
    const width = Math.round(range.upper - range.lower);
    const centre = Math.round((range.upper + range.lower) / 2);
    this.element.querySelector(".cs-window").value = `W ${width} / L ${centre}`;
  }

  listMeasurements() {
    const list = this.element.querySelector(".cs-measurements");
    const lengths = (tools.annotation.state.getAllAnnotations() || [])
      .filter((item) => item.metadata?.toolName === tools.LengthTool.toolName);
    list.replaceChildren(...lengths.map((item) => {
      const [targetId] = Object.keys(item.data?.cachedStats || {});
      const entry = document.createElement("li");
      entry.textContent = lengthText(item.data, targetId)?.[0] ?? "measuring…";
      const pixels = this.pixelDistance(item);
      if (pixels !== null) {
        entry.dataset.pixels = pixels.toFixed(2);
        entry.title = `${pixels.toFixed(1)} image pixels`;
      }
      return entry;
    }));
  }

  // The measured distance in image pixels (shown as a tooltip beside the calibrated length).
  pixelDistance(item) {
    const viewport = this.viewports.find(
      (each) => each.getCurrentImageId() === item.metadata?.referencedImageId);
    const points = item.data?.handles?.points;
    if (!viewport || points?.length !== 2) return null;
    const { imageData } = viewport.getImageData();
    const [a, b] = points.map((point) => imageData.worldToIndex(point));
    return Math.hypot(a[0] - b[0], a[1] - b[1]);
  }
}

function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function wire(viewer) {
  const element = viewer.element;
  const keys = userKeys();
  const measure = new KeyboardMeasure(viewer, (words) => { viewer.status.textContent = words; });
  element.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.tool) viewer.choose(button.dataset.tool);
    else if (button.dataset.preset) viewer.preset(button.dataset.preset);
    else if (button.dataset.action === "invert") viewer.invert();
    else if (button.dataset.action === "zoom-in") viewer.zoom(1.25);
    else if (button.dataset.action === "zoom-out") viewer.zoom(0.8);
    else if (button.dataset.action === "reset") viewer.reset();
    else if (button.dataset.action === "fullscreen") viewer.fullScreen();
  });
  element.addEventListener("contextmenu", (event) => event.preventDefault());
  // In the capture phase, before Cornerstone's own listener on the pane, which cancels every
  // key's default: Tab would never leave an image (a keyboard trap).
  element.addEventListener("keydown", (event) => {
    const pane = event.target instanceof Element && event.target.closest(".cs-canvas");
    const viewport = pane && viewer.viewports.find((each) => each.element === pane);
    if (!viewport || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Tab") {
      event.stopPropagation();
    } else if (onImage(viewer, measure, viewport, event)) {
      event.preventDefault();
      event.stopPropagation(); // the image's keys, not the review's arrows
    }
  }, { capture: true });
  // A measurement the keys started and the focus left unfinished is dropped, not left half-drawn.
  element.addEventListener("focusout", (event) => {
    const pane = measure.current?.viewport.element;
    if (pane && !pane.contains(event.relatedTarget)) measure.cancel();
  });
  document.addEventListener("keydown", (event) => {
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    const action = shortcutAction(keys, event);
    if (!action || !viewer.viewports.length) return;
    action(viewer);
    event.preventDefault();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const element = document.querySelector(".cs-viewer");
  if (!element) return;
  const viewer = new Viewer(element);
  wire(viewer);
  viewer.open().catch((error) => {
    element.dataset.ready = "error";
    viewer.status.textContent = `The viewer could not open these images (${error.message}).`;
  });
});
